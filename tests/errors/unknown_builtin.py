# RUN: --kernel kernel --signature "*fp32, BLOCK=16" --emit ir
# ERROR: 10:9: not_a_builtin
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    v = tl.not_a_builtin(offs)
    tl.store(x_ptr + offs, v)
