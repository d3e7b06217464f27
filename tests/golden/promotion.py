# Triton 3.6's promotion rules (triton-spec.md §5.3): a literal of a lower or equal kind
# does not take part (in bitwise ops and shifts too); fp16 `/` computes in fp32; int / int is
# fp32; mixed int sizes follow C's usual arithmetic conversions.
#
# RUN: --kernel promote --signature "*fp16:16, *i8:16, *u8:16, *i16:16, *i32:16, *i64:16" --emit ir
#
# CHECK-LABEL: func @promote(
# fp16 * 2.0 stays fp16:
# CHECK: [[H:%[0-9]+]] = load {{.*}} : fp16
# CHECK: [[TWO:%[0-9]+]] = constant {value = 2.0} : fp16
# CHECK-NEXT: mul [[H]], [[TWO]] : fp16
# fp16 / 2 computes in fp32:
# CHECK: cast [[H]] : fp32
# CHECK: div {{.*}} : fp32
# int8 + 1 stays int8:
# CHECK: [[B:%[0-9]+]] = load {{.*}} : i8
# CHECK-NEXT: [[ONE:%[0-9]+]] = constant {value = 1} : i8
# CHECK-NEXT: add [[B]], [[ONE]] : i8
# uint8 << 2 stays uint8 (Triton 3.6's bitwise ops check operands as arithmetic does; 3.0
# promoted the literal as int32):
# CHECK: [[U:%[0-9]+]] = load {{.*}} : u8
# CHECK-NEXT: [[TWOU:%[0-9]+]] = constant {value = 2} : u8
# CHECK-NEXT: shl [[U]], [[TWOU]] : u8
# int16 * 4.0 becomes fp32 (a float literal is a higher kind):
# CHECK: [[S:%[0-9]+]] = load {{.*}} : i16
# CHECK: cast [[S]] : fp32
# CHECK: mul {{.*}} : fp32
# int32 / int32 is an fp32 division:
# CHECK: [[I:%[0-9]+]] = load {{.*}} : i32
# CHECK: cast [[I]] : fp32
# CHECK: div {{.*}} : fp32
# int32 + int64 is int64, and // on ints is `div` on ints (C truncation):
# CHECK: [[L:%[0-9]+]] = load {{.*}} : i64
# CHECK: cast [[I]] : i64
# CHECK: div {{.*}} : i64
import tritium
import tritium.language as tl


@tritium.jit
def promote(h_ptr, b_ptr, u_ptr, s_ptr, i_ptr, l_ptr):
    h = tl.load(h_ptr)
    tl.store(h_ptr, h * 2.0)
    tl.store(h_ptr, h / 2)
    b = tl.load(b_ptr)
    tl.store(b_ptr, b + 1)
    u = tl.load(u_ptr)
    tl.store(u_ptr, u << 2)
    s = tl.load(s_ptr)
    tl.store(s_ptr, s * 4.0)
    i = tl.load(i_ptr)
    tl.store(i_ptr, i / i)
    l = tl.load(l_ptr)
    tl.store(l_ptr, i // l)
