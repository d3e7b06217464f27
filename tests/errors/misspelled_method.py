# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 10:9: tensors have no method 'summ' that kernels can use; did you mean `.sum`?
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    x = tl.load(x_ptr + tl.arange(0, 16))
    s = x.summ(0)
    tl.store(x_ptr, s)
