# A tensor descriptor made on the host (Triton's TensorDescriptor argument, signature entry
# `tensordesc<DTYPE[BLOCK]>`) enters the kernel as its base pointer (16-byte aligned), its
# shape (i32 each) and its strides but the last (i64, multiples of 16 bytes: divisibility
# 16 / element size); the last stride is the constant 1. desc.load/store then lower exactly
# as for tl.make_tensor_descriptor (src/lower/block_ptr.cpp): every dimension masked, the
# padding (zero, or NaN with `,padding=nan`) the load's `other`.
#
# RUN: --kernel copy --signature "tensordesc<fp16[16, 32]>, tensordesc<fp16[16, 32],padding=nan>, i32" --emit ir
#
# CHECK-LABEL: func @copy(%src: ptr<fp16> {divisibility = 16}, %src_shape0: i32, %src_shape1: i32, %src_stride0: i64 {divisibility = 8}, %dst: ptr<fp16> {divisibility = 16}, %dst_shape0: i32, %dst_shape1: i32, %dst_stride0: i64 {divisibility = 8}, %row: i32)
# CHECK: [[ONE:%[0-9]+]] = constant {value = 1} : i64
# CHECK: splat %src_stride0 : block<16x1xi64>
# CHECK: splat [[ONE]] : block<1x32xi64>
# CHECK: cast %src_shape0 : i64
# CHECK: cast %src_shape1 : i64
# CHECK: load {{.*}} : block<16x32xfp16>
# CHECK: splat %dst_stride0 : block<16x1xi64>
# CHECK: cast %dst_shape1 : i64
# CHECK: store
#
# RUN: --kernel nan_load --signature "tensordesc<fp32[8, 16],padding=nan>, *fp32:16" --emit ir --check-prefix=NAN
#
# NAN-LABEL: func @nan_load(
# NAN: [[NAN:%[0-9]+]] = constant {value = nan} : fp32
# NAN: splat [[NAN]] : block<8x16xfp32>
# NAN: load

import tritium
import tritium.language as tl


@tritium.jit
def copy(src, dst, row):
    tile = src.load([row, 0])
    dst.store([row, 0], tile)


@tritium.jit
def nan_load(desc, out):
    t = desc.load([0, 0])
    tl.store(out + tl.arange(0, 8)[:, None] * 16 + tl.arange(0, 16)[None, :], t)
