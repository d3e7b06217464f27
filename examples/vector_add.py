# Vector add: the "hello world" of Triton kernels, written for tritium.
#
#   tritium run examples/vector_add.py --kernel add_kernel --grid 4 \
#       --args "x_ptr=rand:fp32:1000, y_ptr=rand:fp32:1000, out_ptr=zeros:fp32:1000, n_elements=1000, BLOCK=256"
#
# or from Python: add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
import tritium
import tritium.language as tl


@tritium.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK: tl.constexpr):
    # Each program instance adds one block of BLOCK elements.
    pid = tl.program_id(axis=0)
    offsets = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n_elements  # the last block may run past the end
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + y, mask=mask)


if __name__ == "__main__":
    import numpy as np

    n = 1000
    x = np.random.rand(n).astype(np.float32)
    y = np.random.rand(n).astype(np.float32)
    out = np.empty_like(x)
    add_kernel[(tritium.cdiv(n, 256),)](x, y, out, n, BLOCK=256)
    assert np.array_equal(out, x + y)
    print("OK")
