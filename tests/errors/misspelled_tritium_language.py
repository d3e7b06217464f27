# RUN: --kernel kernel --signature "*fp32" --emit ir
# ERROR: 9:5: module 'tritium.language' has no attribute 'atomic_ad' that kernels can use; did you mean `tritium.language.atomic_add`?
import tritium
import tritium.language


@tritium.jit
def kernel(x_ptr):
    tritium.language.atomic_ad(x_ptr, 1.0)
