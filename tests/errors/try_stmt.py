# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: try
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr):
    try:
        tl.store(x_ptr, 1.0)
    except Exception:
        pass
