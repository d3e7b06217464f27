# RUN: --kernel kernel --signature "*i32, *fp16" --emit ir
# ERROR: 11:21: fp_downcast_rounding should be set only for truncating fp conversions. Source scalar type is int32 and destination type is fp16
# Triton's cast raises ValueError for a rounding mode on anything but a narrowing float
# conversion (found comparing tritium's and Triton 3.6's PTX over casts).
import tritium
import tritium.language as tl


@tritium.jit
def kernel(x_ptr, o_ptr):
    tl.store(o_ptr, tl.load(x_ptr).to(tl.float16, fp_downcast_rounding="rtz"))
