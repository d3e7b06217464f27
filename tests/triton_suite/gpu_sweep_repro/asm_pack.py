import tritium as triton
import tritium.language as tl


@triton.jit
def shift_bytes(x_ptr, y_ptr, BLOCK: tl.constexpr):
    x = tl.load(x_ptr + tl.arange(0, BLOCK))
    # four int8 elements in one 32-bit register per asm call
    y = tl.inline_asm_elementwise("shl.b32 $0, $1, 1;", "=r,r", [x], dtype=tl.int8, is_pure=True, pack=4)
    tl.store(y_ptr + tl.arange(0, BLOCK), y)
