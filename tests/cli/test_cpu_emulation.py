"""The NVPTX emitter's layouts checked without a GPU: a kernel's LLVM IR (`tritium compile
--emit llvm`) is retargeted to the host (address spaces dropped, shared memory a plain array)
and compiled with llc, and each thread of the CTA runs as a host thread: %tid.x is a
thread-local, `bar.sync` a barrier of all of them, `shfl.sync.bfly` an exchange through a
per-warp slot array between two barriers of the warp. So every barrier, shuffle and
shared-memory round trip happens as on the GPU (inline PTX cannot run). Kernels: coalesced
column-major reads and transposed stores (gpu/coalesce.h), conversions through padded shared
memory, a column-major copy that needs none; scans and reductions along every axis of 2-D
and 3-D blocks (registers, lanes and warps); gathers through shared memory along every axis
(tl.gather, indices out of range included); fp32, fp16, int8 and int32, 1-8 warps. Skipped
visibly without llc (LLVM) or a C compiler."""

import glob
import os
import re
import shutil
import subprocess
import textwrap

import numpy as np
import pytest

CLI = os.environ.get("TRITIUM_CLI", "tritium")

KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def column_read(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        x = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
        tl.store(out_ptr + m[:, None] * BN + n[None, :], x)


    @tritium.jit
    def transpose(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        x = tl.load(x_ptr + m[:, None] * BN + n[None, :])
        tl.store(out_ptr + n[None, :] * stride + m[:, None], x)


    @tritium.jit
    def column_copy(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        x = tl.load(x_ptr + m[:, None] + n[None, :] * stride)
        tl.store(out_ptr + m[:, None] + n[None, :] * stride, x)


    @tritium.jit
    def column_tiles(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # Loop-carried pointer blocks, column-major (gpu/rebase_pointers.h makes them
        # index-computed, so gpu/coalesce.h gives the load and the store a column layout).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        src = x_ptr + m[:, None] + n[None, :] * stride
        dst = out_ptr + m[:, None] + n[None, :] * stride
        for i in range(3):
            tl.store(dst, tl.load(src) * 2 + 1)
            src += BM
            dst += BM


    @tritium.jit
    def column_add(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # Two column-major loads, an elementwise op of both, a column-major store: all in the
        # column layout (coalesce.cpp moves the conversions past the op; none is left).
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        at = m[:, None] + n[None, :] * stride
        x = tl.load(x_ptr + at)
        y = tl.load(x_ptr + 16 + at)
        tl.store(out_ptr + at, (x + y) * 2 - x)


    @tritium.jit
    def column_group_max(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # A column-major read scaled per group of 8 along its rows, as triton_kernels' MX
        # quantization along axis 0: the maxima of |x| through a reshape and a reduction,
        # and x scaled by them. Both chains leave the column layout (to the reduction and
        # the broadcast's product): the load is converted once, each chain computed from it.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN)
        x = tl.load(x_ptr + m[:, None] + n[None, :] * stride).to(tl.float32)
        big = tl.max(tl.reshape(tl.abs(x), [BM, BN // 8, 8]), axis=2, keep_dims=True)
        y = tl.reshape(tl.reshape(x * 2, [BM, BN // 8, 8]) - big, [BM, BN])
        tl.store(out_ptr + m[:, None] * BN + n[None, :], y.to(x_ptr.dtype.element_ty))


    @tritium.jit
    def column_group_maxima(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # The maxima of |x| per group of 8 along the rows of a column-major read: no access
        # lays the BM x BN blocks out in the flat rule, so its V follows the reduction.
        m = tl.arange(0, BM)
        n = tl.arange(0, BN // 8)
        x = tl.load(x_ptr + m[:, None] + tl.arange(0, BN)[None, :] * stride)
        big = tl.max(tl.reshape(tl.abs(x), [BM, BN // 8, 8]), axis=2)
        tl.store(out_ptr + m[:, None] * (BN // 8) + n[None, :], big)


    @tritium.jit
    def cube(x_ptr, out_ptr, stride, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
        # x[a, b, c] at a * C * stride + b + c * stride: contiguous along the middle axis.
        a = tl.arange(0, A)
        b = tl.arange(0, B)
        c = tl.arange(0, C)
        x = tl.load(x_ptr + a[:, None, None] * (C * stride) + b[None, :, None] + c[None, None, :] * stride)
        tl.store(out_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :], x)


    @tritium.jit
    def scan_tile(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                  REVERSE: tl.constexpr):
        # Row-major tile; its cumulative sum along AXIS, and the running maximum (a combine
        # function of two values) below it.
        at = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + at)
        tl.store(out_ptr + at, tl.cumsum(x, AXIS, reverse=REVERSE))
        tl.store(out_ptr + BM * BN + at, tl.associative_scan(x, AXIS, _maximum, reverse=REVERSE))


    @tritium.jit
    def _maximum(a, b):
        return tl.maximum(a, b)


    @tritium.jit
    def _compose(a1, b1, a2, b2):
        # The affine map x -> a2 * (a1 * x + b1) + b2: associative, not commutative.
        return a1 * a2, b1 * a2 + b2


    @tritium.jit
    def scan_affine(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                    REVERSE: tl.constexpr):
        # A scan whose combine's operand order matters: the running composition of affine
        # maps a = x % 3 - 1, b = x along AXIS (i32, wrapping).
        at = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + at)
        a, b = tl.associative_scan((x % 3 - 1, x), AXIS, _compose, reverse=REVERSE)
        tl.store(out_ptr + at, a)
        tl.store(out_ptr + BM * BN + at, b)


    @tritium.jit
    def scan_cube(x_ptr, out_ptr, stride, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                  AXIS: tl.constexpr, REVERSE: tl.constexpr):
        at = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
              + tl.arange(0, C)[None, None, :])
        tl.store(out_ptr + at, tl.cumsum(tl.load(x_ptr + at), AXIS, reverse=REVERSE))


    @tritium.jit
    def reduce_cube(x_ptr, out_ptr, stride, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                    AXIS: tl.constexpr, REVERSE: tl.constexpr):
        # Along AXIS of a 3-D block: the sum, then the index of the maximum (ties: the first).
        at = (tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
              + tl.arange(0, C)[None, None, :])
        x = tl.load(x_ptr + at)
        s = tl.sum(x, AXIS, keep_dims=True)
        i = tl.argmax(x, AXIS, keep_dims=True)
        n = A * B * C
        if AXIS == 0:
            o = tl.arange(0, B)[:, None] * C + tl.arange(0, C)[None, :]
        elif AXIS == 1:
            o = tl.arange(0, A)[:, None] * C + tl.arange(0, C)[None, :]
        else:
            o = tl.arange(0, A)[:, None] * B + tl.arange(0, B)[None, :]
        o = tl.expand_dims(o, AXIS)
        tl.store(out_ptr + o, s)
        tl.store(out_ptr + n + o, i)


    @tritium.jit
    def masked_rows(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                    REVERSE: tl.constexpr):
        # The columns below `stride` (a multiple of 16: the mask is constant over aligned
        # runs of 16 columns, so the emitter compares one register of each run).
        cols = tl.arange(0, BN)
        at = tl.arange(0, BM)[:, None] * BN + cols[None, :]
        x = tl.load(x_ptr + at)
        tl.store(out_ptr + at, tl.where(cols[None, :] < stride, x, -1))


    @tritium.jit
    def sum_but_one(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                    REVERSE: tl.constexpr):
        # Row sums without the column `stride` where it is inside the block (unsloth's
        # label): the `if`'s where runs on every element and a select on its condition
        # takes it (gpu/speculate_ifs.h), a barrier apart from the row maximum before.
        cols = tl.arange(0, BN)
        at = tl.arange(0, BM)[:, None] * BN + cols[None, :]
        x = tl.load(x_ptr + at)
        x = x - tl.max(x, 1)[:, None]
        if stride < BN:
            x = tl.where(cols[None, :] == stride, 0, x)
        tl.store(out_ptr + tl.arange(0, BM), tl.sum(x, 1))


    @tritium.jit
    def row_max(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                REVERSE: tl.constexpr):
        # One column of each row (a different one per row) holds 120, above every input.
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        x = tl.load(x_ptr + rows[:, None] * BN + cols[None, :])
        x = tl.where(cols[None, :] == (rows[:, None] * 1237 + 2901) % BN, 120, x)
        tl.store(out_ptr + rows, tl.max(x, 1))


    @tritium.jit
    def row_sum_order(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                      REVERSE: tl.constexpr):
        # Row sums of values whose fp32 sum depends on the order of its additions (some
        # a thousand times the input, the rest a hundredth of it).
        rows = tl.arange(0, BM)
        cols = tl.arange(0, BN)
        x = tl.load(x_ptr + rows[:, None] * BN + cols[None, :])
        v = tl.where(x % 5 == 0, x * 1000.0, x * 0.013)
        tl.store(out_ptr + rows, tl.sum(v, 1))


    @tritium.jit
    def range_to_int_max(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                         REVERSE: tl.constexpr):
        # A range whose last iv + step passes 2^31 - 1: the loop must stop, not wrap.
        count = 0
        last = -1
        total = 0
        for i in range(stride, 2147483647, 7):
            total += tl.load(x_ptr + count)
            count += 1
            last = i
        col = tl.arange(0, BN)
        tl.store(out_ptr + col, tl.where(col == 0, count, tl.where(col == 1, last, total)))


    @tritium.jit
    def row_stats(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                  REVERSE: tl.constexpr):
        # Per row: the sum, then the index of the maximum (ties: the first).
        rows = tl.arange(0, BM)
        x = tl.load(x_ptr + rows[:, None] * BN + tl.arange(0, BN)[None, :])
        tl.store(out_ptr + rows, tl.sum(x, 1))
        tl.store(out_ptr + BM + rows, tl.argmax(x, 1))


    @tritium.jit
    def sum_tile(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                 REVERSE: tl.constexpr):
        x = tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
        if AXIS == 0:
            tl.store(out_ptr + tl.arange(0, BN), tl.sum(x, 0))
        else:
            tl.store(out_ptr + tl.arange(0, BM), tl.max(x, 1))

    @tritium.jit
    def gather_tile(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr, AXIS: tl.constexpr,
                    K: tl.constexpr):
        # K indices along AXIS per row/column, in [-1, size] (the ends are outside: zero).
        x = tl.load(x_ptr + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :])
        if AXIS == 0:
            i = tl.arange(0, K)[:, None]
            j = tl.arange(0, BN)[None, :]
            idx = (i * 7 + j * 13 + stride) % (BM + 2) - 1
            tl.store(out_ptr + i * BN + j, tl.gather(x, idx, 0))
        else:
            i = tl.arange(0, BM)[:, None]
            j = tl.arange(0, K)[None, :]
            idx = (i * 7 + j * 13 + stride) % (BN + 2) - 1
            tl.store(out_ptr + i * K + j, x.gather(idx, axis=1))


    @tritium.jit
    def gather_columns(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # A column-major load and store around a gather along the columns: the conversions
        # out of and into the column layout meet the gather's buffer (barriers between).
        m = tl.arange(0, BM)[:, None]
        n = tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + m + n * stride)
        idx = (m * 3 + n * 5 + stride) % BM
        tl.store(out_ptr + m + n * BM, tl.gather(x, idx, 0))

    @tritium.jit
    def gather_cube(x_ptr, out_ptr, stride, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr,
                    AXIS: tl.constexpr):
        # Twice as many indices as the source has along AXIS, as int64.
        x = tl.load(x_ptr + tl.arange(0, A)[:, None, None] * (B * C) + tl.arange(0, B)[None, :, None] * C
                    + tl.arange(0, C)[None, None, :])
        IA: tl.constexpr = A * 2 if AXIS == 0 else A
        IB: tl.constexpr = B * 2 if AXIS == 1 else B
        IC: tl.constexpr = C * 2 if AXIS == 2 else C
        a = tl.arange(0, IA)[:, None, None]
        b = tl.arange(0, IB)[None, :, None]
        c = tl.arange(0, IC)[None, None, :]
        size: tl.constexpr = A if AXIS == 0 else B if AXIS == 1 else C
        idx = ((a * 5 + b * 3 + c * 11 + stride) % (size + 2) - 1).to(tl.int64)
        tl.store(out_ptr + a * (IB * IC) + b * IC + c, tl.gather(x, idx, AXIS))


    @tritium.jit
    def bytes_to_fp16(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        # Every 8-bit integer (from x[0] on, wrapping) to fp16, signed and unsigned; the
        # results' bits stored byte by byte: low bytes, then high bytes, then the same unsigned.
        i = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        k = i + tl.load(x_ptr)
        for signed in tl.static_range(2):
            h = (k.to(tl.int8) if signed == 0 else k.to(tl.uint8)).to(tl.float16).to(tl.int16, bitcast=True)
            tl.store(out_ptr + signed * 2 * BM * BN + i, (h & 0xFF).to(tl.int8))
            tl.store(out_ptr + signed * 2 * BM * BN + BM * BN + i, (h >> 8).to(tl.int8))
''')

DRIVER = r'''
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
__thread int emu_tid;
static pthread_barrier_t cta, warp[32];
static int lane_slot[1024];
void emu_barrier(void) { pthread_barrier_wait(&cta); }
int emu_shfl_bfly(int mask, int value, int lane_mask, int clamp) {
  (void)mask, (void)clamp;
  int w = emu_tid / 32;
  lane_slot[emu_tid] = value;
  pthread_barrier_wait(&warp[w]);
  int got = lane_slot[(emu_tid & ~31) | ((emu_tid & 31) ^ lane_mask)];
  pthread_barrier_wait(&warp[w]);
  return got;
}
// shfl.sync.up/down/idx: the lane delta below / above (itself past the warp's ends, as
// the clamp operand 0 / 31 asks), or the lane given.
static int emu_shfl_from(int value, int source) {
  int w = emu_tid / 32;
  lane_slot[emu_tid] = value;
  pthread_barrier_wait(&warp[w]);
  int got = lane_slot[(emu_tid & ~31) | (source & 31)];
  pthread_barrier_wait(&warp[w]);
  return got;
}
int emu_shfl_up(int mask, int value, int delta, int clamp) {
  (void)mask, (void)clamp;
  int lane = emu_tid & 31;
  return emu_shfl_from(value, lane >= delta ? lane - delta : lane);
}
int emu_shfl_down(int mask, int value, int delta, int clamp) {
  (void)mask, (void)clamp;
  int lane = emu_tid & 31;
  return emu_shfl_from(value, lane + delta <= 31 ? lane + delta : lane);
}
int emu_shfl_idx(int mask, int value, int lane, int clamp) {
  (void)mask, (void)clamp;
  return emu_shfl_from(value, lane);
}
// Predicated stores (inline PTX `@p st.global.bN [a+off], {...}`, and st.shared: the host has
// one address space), as calls.
#define EMU_ST(bits, ctype) \
  void emu_st_b##bits##_x1(char* p, long off, _Bool pred, ctype a) { if (pred) ((ctype*)(p + off))[0] = a; } \
  void emu_st_b##bits##_x2(char* p, long off, _Bool pred, ctype a, ctype b) { \
    if (pred) ((ctype*)(p + off))[0] = a, ((ctype*)(p + off))[1] = b; } \
  void emu_st_b##bits##_x4(char* p, long off, _Bool pred, ctype a, ctype b, ctype c, ctype d) { \
    if (pred) ((ctype*)(p + off))[0] = a, ((ctype*)(p + off))[1] = b, ((ctype*)(p + off))[2] = c, \
              ((ctype*)(p + off))[3] = d; }
EMU_ST(8, unsigned char)
EMU_ST(16, unsigned short)
EMU_ST(32, unsigned)
EMU_ST(64, unsigned long)
void KERNEL(void*, void*, int);
static void *x, *out;
static int stride;
static void* run(void* tid) {
  emu_tid = (int)(long)tid;
  KERNEL(x, out, stride);
  return NULL;
}
int main(int argc, char** argv) {
  int nin = atoi(argv[1]), nout = atoi(argv[2]), threads = atoi(argv[3]);
  stride = atoi(argv[4]);
  CTYPE* in = aligned_alloc(64, (sizeof(CTYPE) * nin + 63) / 64 * 64);
  CTYPE* result = aligned_alloc(64, (sizeof(CTYPE) * nout + 63) / 64 * 64);
  for (int i = 0; i < nin; ++i) in[i] = (CTYPE)(i % 97 + 1 - (i / 97) % 3 * 40);
  memset(result, 0, sizeof(CTYPE) * nout);
  x = in, out = result;
  pthread_barrier_init(&cta, NULL, threads);
  for (int w = 0; w < threads / 32; ++w) pthread_barrier_init(&warp[w], NULL, 32);
  pthread_t t[1024];
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, 1 << 18);
  for (long i = 0; i < threads; ++i) pthread_create(&t[i], &attr, run, (void*)i);
  for (int i = 0; i < threads; ++i) pthread_join(t[i], NULL);
  fwrite(in, sizeof(CTYPE), nin, stdout);
  fwrite(result, sizeof(CTYPE), nout, stdout);
  return 0;
}
'''

TYPES = {"fp32": ("float", np.float32), "fp16": ("_Float16", np.float16), "i8": ("signed char", np.int8),
         "i32": ("int", np.int32)}


def find_llc():
    # The llc of the LLVM tritium was built with (its IR may not parse in an older one).
    def version(path):
        found = re.search(r"llvm-(\d+)", path)
        return int(found.group(1)) if found else 0
    candidates = [os.environ.get("TRITIUM_LLC")] + sorted(glob.glob("/usr/lib/llvm-*/bin/llc"), key=version, reverse=True)
    for candidate in candidates + [shutil.which("llc")]:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


LLC = find_llc()
CC = shutil.which("gcc") or shutil.which("cc")
pytestmark = pytest.mark.skipif(LLC is None or CC is None, reason="needs llc (LLVM) and a C compiler")


def host_ir(ll):
    """The kernel's NVPTX LLVM IR made runnable on the host."""
    ll = re.sub(r" addrspace\(\d\)", "", ll)
    ll = ll.replace("ptx_kernel ", "")
    ll = "\n".join(line for line in ll.splitlines() if not line.startswith("target "))
    ll = re.sub(r"@__tritium_shared = external [^\n]*", "@__tritium_shared = global [262144 x i8] zeroinitializer, align 16", ll)
    ll = re.sub(r"tail call i32 @llvm\.nvvm\.read\.ptx\.sreg\.tid\.x\(\)", "load i32, ptr @emu_tid", ll)
    for kind in ("bfly", "up", "down", "idx"):
        ll = re.sub(rf"(tail )?call i32 @llvm\.nvvm\.shfl\.sync\.{kind}\.i32\(", f"call i32 @emu_shfl_{kind}(", ll)
        ll = re.sub(rf"declare [^\n]*@llvm\.nvvm\.shfl\.sync\.{kind}\.i32[^\n]*",
                    f"declare i32 @emu_shfl_{kind}(i32, i32, i32, i32)", ll)
    ll = re.sub(r"(tail )?call void @llvm\.nvvm\.barrier[.a-z]*\(i32 0\)", "call void @emu_barrier()", ll)
    ll = re.sub(r"declare [^\n]*@llvm\.nvvm\.read\.ptx\.sreg\.tid\.x[^\n]*", "@emu_tid = external thread_local global i32", ll)
    ll = re.sub(r"declare void @llvm\.nvvm\.barrier[.a-z]*\(i32\)[^\n]*", "declare void @emu_barrier()", ll)
    return predicated_stores_as_calls(re.sub(r'"nvvm\.maxntid"="\d+"', "", ll))


PREDICATED_STORE = re.compile(
    r'call void asm sideeffect "@\$1 st\.(?:global|shared)[.a-z_:0-9]*?(?:\.v(\d))?\.b(\d+) \[\$0(?:\+(\d+))?\], [^"]*", "[^"]*"'
    r'\(ptr ((?:getelementptr[a-z ]*\([^()]*\))|[^,]+), i1 ([^,]+), ([^)]*)\)')


def predicated_stores_as_calls(ll):
    """`@p st.global` inline PTX (stores of replicated values) and `@p st.shared` (a reduction's
    partials and results) as calls to the driver's emu_st_*."""
    def call(m):
        count, bits, offset, ptr, pred, values = m.group(1) or "1", m.group(2), m.group(3) or "0", m.group(4), m.group(5), m.group(6)
        return f"call void @emu_st_b{bits}_x{count}(ptr {ptr}, i64 {offset}, i1 {pred}, {values})"
    ll = PREDICATED_STORE.sub(call, ll)
    for bits in (8, 16, 32, 64):
        for count in (1, 2, 4):
            ll += f"\ndeclare void @emu_st_b{bits}_x{count}(ptr, i64, i1" + f", i{bits}" * count + ")"
    return ll + "\n"


def run_on_host(tmp_path, kernel, ty, tile, warps, nin, nout, stride, constexprs="", kernels=None):
    ctype, nptype = TYPES[ty]
    source = tmp_path / "kernels.py"
    source.write_text(kernels or KERNELS)
    shape = "".join(f", {name}={size}" for name, size in zip("ABC" if len(tile) == 3 else ("BM", "BN"), tile))
    signature = f"*{ty}:16, *{ty}:16, i32:16{shape}{constexprs}"
    def emit(what):
        return subprocess.run([CLI, "compile", str(source), "--kernel", kernel, "--signature", signature,
                               "--num-warps", str(warps), "--emit", what], capture_output=True, text=True,
                              check=True).stdout
    ll = emit("llvm")
    host = host_ir(ll)
    assert "asm" not in host, "inline PTX cannot run on the host"
    (tmp_path / "k.ll").write_text(host)
    subprocess.run([LLC, "-O1", "-relocation-model=pic", "-filetype=obj", str(tmp_path / "k.ll"), "-o",
                    str(tmp_path / "k.o")], check=True)
    (tmp_path / "driver.c").write_text(DRIVER.replace("KERNEL", kernel).replace("CTYPE", ctype))
    subprocess.run([CC, "-O1", str(tmp_path / "driver.c"), str(tmp_path / "k.o"), "-o", str(tmp_path / "run"),
                    "-lpthread", "-lm"], check=True)
    raw = subprocess.run([str(tmp_path / "run"), str(nin), str(nout), str(32 * warps), str(stride)],
                         capture_output=True, check=True).stdout
    data = np.frombuffer(raw, dtype=nptype)
    return data[:nin], data[nin:nin + nout], ll, emit("ptx")


@pytest.mark.parametrize("kernel", ["column_read", "transpose", "column_copy"])
@pytest.mark.parametrize("ty", ["fp32", "fp16", "i8"])
@pytest.mark.parametrize("tile,warps", [((64, 64), 4), ((128, 32), 2), ((16, 256), 8), ((32, 128), 1)])
def test_layouts_move_every_element_where_it_belongs(tmp_path, kernel, ty, tile, warps):
    BM, BN = tile
    stride = max(BM, BN) + 48  # a multiple of 16, not a power of two
    if kernel == "column_read":
        nin, nout = BM + (BN - 1) * stride, BM * BN
    elif kernel == "transpose":
        nin, nout = BM * BN, BM + (BN - 1) * stride
    else:
        nin = nout = BM + (BN - 1) * stride
    x, out, ll, ptx = run_on_host(tmp_path, kernel, ty, tile, warps, nin, nout, stride)
    m = np.arange(BM)[:, None]
    n = np.arange(BN)[None, :]
    expected = np.zeros(nout, dtype=out.dtype)
    if kernel == "column_read":
        expected = x[m + n * stride].reshape(-1)
    elif kernel == "transpose":
        expected[(n * stride + m).reshape(-1)] = x[(m * BN + n).reshape(-1)]
    else:
        expected[(m + n * stride).reshape(-1)] = x[(m + n * stride).reshape(-1)]
    assert np.array_equal(out, expected)
    # The column-major side is one 16-byte vector per V elements; the copy needs no barrier.
    if kernel != "transpose":
        assert re.search(r"ld\.global\.v4\.b32", ptx)
    if kernel != "column_read":
        assert re.search(r"st\.global\.v4\.b32", ptx)
    assert ("barrier" in ll) == (kernel != "column_copy")


@pytest.mark.parametrize("ty", ["fp32", "fp16"])
@pytest.mark.parametrize("shape,warps", [((4, 16, 32), 4), ((8, 64, 8), 1), ((2, 32, 64), 2)])
def test_three_dimensional_column_read(tmp_path, ty, shape, warps):
    A, B, C = shape
    stride = B + 16
    nin, nout = A * C * stride, A * B * C
    x, out, ll, ptx = run_on_host(tmp_path, "cube", ty, shape, warps, nin, nout, stride)
    a, b, c = np.meshgrid(np.arange(A), np.arange(B), np.arange(C), indexing="ij")
    assert np.array_equal(out.reshape(A, B, C), x[a * C * stride + b + c * stride])
    assert re.search(r"ld\.global\.v4\.b32", ptx)


@pytest.mark.parametrize("ty", ["fp32", "fp16", "i8"])
@pytest.mark.parametrize("tile,warps", [((64, 64), 4), ((128, 32), 2), ((32, 128), 1)])
def test_carried_pointer_column_tiles(tmp_path, ty, tile, warps):
    BM, BN = tile
    stride = 3 * BM + 16
    n_elements = 3 * BM + (BN - 1) * stride
    x, out, ll, ptx = run_on_host(tmp_path, "column_tiles", ty, tile, warps, n_elements, n_elements, stride)
    expected = np.zeros(n_elements, dtype=out.dtype)
    for i in range(3):
        at = (np.arange(BM)[:, None] + i * BM + np.arange(BN)[None, :] * stride).reshape(-1)
        expected[at] = x[at] * 2 + 1
    assert np.array_equal(out, expected)
    # Rebased (each block an offset carried in i64), then coalesced: 16-byte vectors both ways,
    # and no conversion between them.
    assert re.search(r"ld\.global\.v4\.b32", ptx) and re.search(r"st\.global\.v4\.b32", ptx)
    assert "barrier" not in ll


@pytest.mark.parametrize("ty", ["fp32", "fp16", "i8"])
@pytest.mark.parametrize("tile,warps", [((64, 64), 4), ((128, 32), 2), ((16, 256), 8)])
def test_elementwise_stays_in_the_column_layout(tmp_path, ty, tile, warps):
    BM, BN = tile
    stride = BM + 48
    n_elements = BM + 16 + (BN - 1) * stride
    x, out, ll, ptx = run_on_host(tmp_path, "column_add", ty, tile, warps, n_elements, n_elements, stride)
    at = (np.arange(BM)[:, None] + np.arange(BN)[None, :] * stride).reshape(-1)
    expected = np.zeros(n_elements, dtype=out.dtype)
    expected[at] = (x[at] + x[at + 16]) * out.dtype.type(2) - x[at]
    assert np.array_equal(out, expected)
    assert re.search(r"ld\.global\.v4\.b32", ptx) and re.search(r"st\.global\.v4\.b32", ptx)
    assert "barrier" not in ll  # no round trip: the chain never leaves the column layout


@pytest.mark.parametrize("ty", ["fp32", "fp16"])
@pytest.mark.parametrize("tile,warps", [((128, 32), 8), ((64, 32), 4), ((32, 64), 2), ((64, 16), 1)])
def test_chains_from_a_column_read_convert_it_once(tmp_path, ty, tile, warps):
    BM, BN = tile
    stride = BM + 48
    nin = BM + (BN - 1) * stride
    x, out, ll, ptx = run_on_host(tmp_path, "column_group_max", ty, tile, warps, nin, BM * BN, stride)
    x = x[np.arange(BM)[:, None] + np.arange(BN)[None, :] * stride].astype(np.float32)
    big = np.abs(x.reshape(BM, BN // 8, 8)).max(2, keepdims=True)
    assert np.array_equal(out.reshape(BM, BN), (x.reshape(BM, BN // 8, 8) * 2 - big).reshape(BM, BN).astype(out.dtype))
    assert re.search(r"ld\.global\.v4\.b32", ptx)
    # One round trip out of the column layout (of the loaded elements), not one per chain.
    gpu_ir = subprocess.run([CLI, "compile", str(tmp_path / "kernels.py"), "--kernel", "column_group_max",
                             "--signature", f"*{ty}:16, *{ty}:16, i32:16, BM={BM}, BN={BN}", "--num-warps",
                             str(warps), "--emit", "gpu-ir"], capture_output=True, text=True, check=True).stdout
    trips = [line for line in gpu_ir.splitlines() if "convert_layout" in line and "shared_sizes" in line]
    assert len(trips) == 1 and f"block<{BM}x{BN}x{ty}," in trips[0].split(":")[-1], trips


@pytest.mark.parametrize("ty", ["fp32", "fp16", "i8"])
@pytest.mark.parametrize("tile,warps", [((128, 32), 8), ((64, 32), 4), ((32, 64), 2), ((64, 16), 1)])
def test_groups_of_a_column_read_reduced_within_threads(tmp_path, ty, tile, warps):
    BM, BN = tile
    stride = BM + 48
    nin = BM + (BN - 1) * stride
    x, out, ll, ptx = run_on_host(tmp_path, "column_group_maxima", ty, tile, warps, nin, BM * BN // 8, stride)
    x = x[np.arange(BM)[:, None] + np.arange(BN)[None, :] * stride]
    assert np.array_equal(out.reshape(BM, BN // 8), np.abs(x.reshape(BM, BN // 8, 8)).max(2))
    # 16 bytes of a group in each thread (4 of the maxima's fp32 or i32: tl.max widens
    # narrower types), the rest across lanes: one shuffle level per run of 4 registers,
    # where V = 1 spread each group over 8 lanes (three levels per element of a thread).
    elements = BM * BN // (32 * warps)
    per_thread = min(4, elements)
    levels = int(np.log2(8 // per_thread))
    assert len(re.findall(r"shfl\.sync\.bfly", ptx)) <= elements // per_thread * levels


def scan_reference(x, axis, reverse, combine):
    x = np.flip(x, axis) if reverse else x
    out = combine.accumulate(x, axis=axis)
    return np.flip(out, axis) if reverse else out


# Tiles and warp counts that put the scanned axis in registers only, across lanes, across
# warps, and across all three; the inner (non-scanned) axes spread the same ways.
@pytest.mark.parametrize("ty", ["fp32", "i32"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((64, 8), 2), ((16, 256), 8), ((4, 1024), 4)])
def test_scans_along_every_axis(tmp_path, ty, axis, reverse, tile, warps):
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "scan_tile", ty, tile, warps, n, 2 * n, 0,
                                  f", AXIS={axis}, REVERSE={reverse}")
    x = x.reshape(BM, BN)
    assert np.array_equal(out[:n].reshape(BM, BN), scan_reference(x, axis, reverse, np.add))
    assert np.array_equal(out[n:].reshape(BM, BN), scan_reference(x, axis, reverse, np.maximum))


def affine_reference(x, axis, reverse):
    # The composition in scan order (reversed: from the last element), int32 wrapping.
    x = np.moveaxis(x.astype(np.int64), axis, -1)
    a, b = np.empty_like(x), np.empty_like(x)
    order = range(x.shape[-1] - 1, -1, -1) if reverse else range(x.shape[-1])
    acc = None
    for j in order:
        xa, xb = np.fmod(x[..., j], 3) - 1, x[..., j]
        acc = (xa, xb) if acc is None else (acc[0] * xa, acc[1] * xa + xb)
        acc = tuple((v + 2**31) % 2**32 - 2**31 for v in acc)
        a[..., j], b[..., j] = acc
    return np.moveaxis(a, -1, axis).astype(np.int32), np.moveaxis(b, -1, axis).astype(np.int32)


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((16, 256), 8), ((4, 1024), 4), ((1, 4096), 8)])
def test_scans_whose_combine_is_not_commutative(tmp_path, axis, reverse, tile, warps):
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "scan_affine", "i32", tile, warps, n, 2 * n, 0,
                                  f", AXIS={axis}, REVERSE={reverse}")
    x = x.reshape(BM, BN)
    a, b = affine_reference(x, axis, reverse)
    assert np.array_equal(out[:n].reshape(BM, BN), a)
    assert np.array_equal(out[n:].reshape(BM, BN), b)


@pytest.mark.parametrize("tile,warps,limit", [((4, 256), 4, 48), ((8, 64), 1, 16), ((1, 1024), 2, 1008),
                                              ((16, 32), 4, 32), ((2, 512), 4, 0)])
def test_a_mask_compared_once_per_run(tmp_path, tile, warps, limit):
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "masked_rows", "i32", tile, warps, n, n, limit,
                                  ", AXIS=1, REVERSE=False")
    x = x.reshape(BM, BN)
    assert np.array_equal(out.reshape(BM, BN), np.where(np.arange(BN)[None, :] < limit, x, -1))


@pytest.mark.parametrize("tile,warps", [((1, 8192), 16), ((4, 2048), 16), ((1, 4096), 8), ((2, 1024), 8),
                                        ((1, 1024), 4), ((1, 128), 4), ((1, 256), 2), ((32, 512), 16)])
def test_row_reductions_across_many_warps(tmp_path, tile, warps):
    # Rows spread over every warp (the softmax and norm kernels' shape): the warps' partials
    # are read back several to a thread and combined across lanes by shuffles.
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "row_stats", "i32", tile, warps, BM * BN, 2 * BM, 0,
                                  ", AXIS=1, REVERSE=False")
    x = x.reshape(BM, BN)
    assert np.array_equal(out[:BM], x.sum(1))
    assert np.array_equal(out[BM:], x.argmax(1))  # numpy's ties: the first


@pytest.mark.parametrize("stride", [0, 16, 1008, 4096])
@pytest.mark.parametrize("tile,warps", [((1, 1024), 4), ((4, 256), 8), ((1, 4096), 32)])
def test_an_if_around_a_where_taken_or_not(tmp_path, stride, tile, warps):
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "sum_but_one", "i32", tile, warps, BM * BN, BM, stride,
                                  ", AXIS=1, REVERSE=False")
    x = x.reshape(BM, BN).astype(np.int64) - x.reshape(BM, BN).max(1, keepdims=True)
    if stride < BN:
        x[:, stride] = 0
    assert np.array_equal(out, x.sum(1).astype(np.int32))


@pytest.mark.parametrize("tile,warps", [((16, 16), 1), ((8, 32), 4), ((2, 128), 2), ((4, 64), 8)])
def test_bytes_to_fp16_exactly(tmp_path, tile, warps):
    """int8 and uint8 to fp16 as 1024 + the byte (its sign bit flipped) minus 1152 or 1024, no
    cvt (emit_arith.cpp): every one of the 256 values of each exact, 0 as +0. Two registers a
    thread at a time, and one (8 warps: one register a thread)."""
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "bytes_to_fp16", "i8", tile, warps, 1, 4 * BM * BN, 0)
    k = np.arange(BM * BN) + int(x[0])
    for signed, values in enumerate([k.astype(np.uint8).view(np.int8), k.astype(np.uint8)]):
        bits = values.astype(np.float16).view(np.uint16)
        got = out[signed * 2 * BM * BN:(signed + 1) * 2 * BM * BN].view(np.uint8).astype(np.uint16)
        assert np.array_equal(got[:BM * BN] | (got[BM * BN:] << 8), bits), signed
    assert "cvt.rn.f16.s16" not in ptx and "cvt.rn.f16.u16" not in ptx


@pytest.mark.parametrize("ty", ["fp16", "i8"])
@pytest.mark.parametrize("tile,warps", [((1, 4096), 16), ((2, 2048), 8), ((4, 256), 4)])
def test_row_maxima_of_narrow_types_across_warps(tmp_path, ty, tile, warps):
    # Partials of 1 and 2 bytes: read one to a lane, the rest combined by shuffles. Each
    # row's maximum is one element, in a different warp per row, so a lost partial shows.
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "row_max", ty, tile, warps, BM * BN, BM, 0,
                                  ", AXIS=1, REVERSE=False")
    assert np.array_equal(out, np.full(BM, 120, dtype=out.dtype))
    assert x.max() < 120


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("shape,warps", [((4, 8, 16), 4), ((8, 4, 32), 2), ((2, 64, 8), 8)])
def test_scans_of_three_dimensional_blocks(tmp_path, axis, shape, warps):
    A, B, C = shape
    n = A * B * C
    x, out, ll, ptx = run_on_host(tmp_path, "scan_cube", "i32", shape, warps, n, n, 0, f", AXIS={axis}, REVERSE=False")
    assert np.array_equal(out.reshape(shape), scan_reference(x.reshape(shape), axis, False, np.add))


@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((16, 256), 8), ((128, 8), 2),
                                        ((1, 8192), 16), ((4, 2048), 16), ((8, 128), 8), ((2, 512), 4)])
def test_reductions_along_every_axis(tmp_path, axis, tile, warps):
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "sum_tile", "i32", tile, warps, BM * BN, BN if axis == 0 else BM, 0,
                                  f", AXIS={axis}, REVERSE=False")
    x = x.reshape(BM, BN)
    assert np.array_equal(out, x.sum(0) if axis == 0 else x.max(1))


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("shape,warps", [((4, 8, 16), 4), ((8, 4, 32), 2), ((2, 64, 8), 8), ((16, 2, 4), 1)])
def test_reductions_of_three_dimensional_blocks(tmp_path, axis, shape, warps):
    A, B, C = shape
    n = A * B * C
    x, out, ll, ptx = run_on_host(tmp_path, "reduce_cube", "i32", shape, warps, n, 2 * n, 0,
                                  f", AXIS={axis}, REVERSE=False")
    x = x.reshape(shape)
    m = n // shape[axis]
    assert np.array_equal(out[:m], x.sum(axis).reshape(-1))
    assert np.array_equal(out[n:n + m], x.argmax(axis).reshape(-1))  # numpy's ties: the first


# TRITIUM_REDUCE_EXPERIMENT (nvptx/codegen.h): the variants the GPU benchmark times against
# the default must compute the same results. scanup: a scan's levels across lanes by
# shfl.up (shfl.down reversed), the round across warps then reading the totals from the
# group's last lane; chain: a thread's registers combined left to right.
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((16, 256), 8), ((4, 1024), 4),
                                        ((1, 4096), 8), ((64, 8), 2)])
def test_scans_by_shfl_up(tmp_path, monkeypatch, axis, reverse, tile, warps):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "scanup")
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "scan_tile", "i32", tile, warps, n, 2 * n, 0,
                                  f", AXIS={axis}, REVERSE={reverse}")
    x = x.reshape(BM, BN)
    assert np.array_equal(out[:n].reshape(BM, BN), scan_reference(x, axis, reverse, np.add))
    assert np.array_equal(out[n:].reshape(BM, BN), scan_reference(x, axis, reverse, np.maximum))
    x, out, ll, ptx = run_on_host(tmp_path, "scan_affine", "i32", tile, warps, n, 2 * n, 0,
                                  f", AXIS={axis}, REVERSE={reverse}")
    a, b = affine_reference(x.reshape(BM, BN), axis, reverse)
    assert np.array_equal(out[:n].reshape(BM, BN), a)
    assert np.array_equal(out[n:].reshape(BM, BN), b)
    # Where lanes move along the axis, the levels across them shuffle up (down reversed),
    # never by butterflies.
    assert "shfl.sync.bfly" not in ll
    if axis == 1 and BM <= 4:
        assert re.search(r"shfl\.sync\.down" if reverse else r"shfl\.sync\.up", ll)


@pytest.mark.parametrize("shape,warps,axis", [((4, 8, 16), 4, 2), ((2, 64, 8), 8, 1), ((8, 4, 32), 2, 0)])
def test_scans_of_three_dimensional_blocks_by_shfl_up(tmp_path, monkeypatch, shape, warps, axis):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "scanup")
    n = shape[0] * shape[1] * shape[2]
    x, out, ll, ptx = run_on_host(tmp_path, "scan_cube", "i32", shape, warps, n, n, 0, f", AXIS={axis}, REVERSE=False")
    assert np.array_equal(out.reshape(shape), scan_reference(x.reshape(shape), axis, False, np.add))


@pytest.mark.parametrize("tile,warps", [((1, 8192), 16), ((4, 2048), 16), ((1, 1024), 4), ((32, 512), 16)])
def test_row_reductions_chained(tmp_path, monkeypatch, tile, warps):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "chain,scanup")
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "row_stats", "i32", tile, warps, BM * BN, 2 * BM, 0,
                                  ", AXIS=1, REVERSE=False")
    x = x.reshape(BM, BN)
    assert np.array_equal(out[:BM], x.sum(1))
    assert np.array_equal(out[BM:], x.argmax(1))  # ties: the first, in either order


def triton_order_row_sums(v, vector, threads):
    """Row sums of `v` (float32, [BM, BN]) in the order Triton 3.6 adds them for the flat
    layout (element e in thread (e // vector) % threads): each thread's elements of the row left
    to right, then a butterfly over the lane bits along the row, the highest first, then the
    warps' partials as a butterfly with the widest stride first."""
    f32 = np.float32
    BM, BN = v.shape
    flat = v.reshape(-1)
    owner = (np.arange(flat.size) // vector) % threads

    def strided(items):
        while len(items) > 1:
            half = len(items) // 2
            items = [f32(items[i] + items[i + half]) for i in range(half)]
        return items[0]

    sums = []
    for row in range(BM):
        part = {}
        for e in range(row * BN, (row + 1) * BN):
            part.setdefault(int(owner[e]), []).append(flat[e])
        for t, items in part.items():
            acc = items[0]
            for x in items[1:]:
                acc = f32(acc + x)
            part[t] = acc
        for j in range(4, -1, -1):
            if all((t ^ (1 << j)) in part for t in part):
                part = {t: f32(part[t] + part[t ^ (1 << j)]) for t in part}
        group = [part[w * 32 + min(t % 32 for t in part)] for w in sorted({t // 32 for t in part})]
        sums.append(strided(group))
    return np.array(sums, dtype=np.float32)


@pytest.mark.parametrize("tile,warps", [((1, 128), 4), ((1, 4096), 8), ((4, 2048), 16), ((1, 8192), 16),
                                        ((2, 1024), 8), ((8, 256), 2)])
def test_row_sums_in_tritons_order(tmp_path, tile, warps):
    """tl.sum adds a row in Triton 3.6's order (emit_reduce.cpp): registers left to right,
    lanes from the highest bit, warps by the widest stride first (also where several warps'
    partials reach a thread and lanes exchange the rest, 16 warps): the fp32 result equals a
    model of that order to the last bit, on data whose sum depends on the order (tritium's
    order before session 17 fails four of the six)."""
    BM, BN = tile
    x, out, ll, ptx = run_on_host(tmp_path, "row_sum_order", "fp32", tile, warps, BM * BN, BM, 0,
                                  ", AXIS=1, REVERSE=False")
    x = x.reshape(BM, BN)
    v = np.where(np.fmod(x, 5) == 0, x * np.float32(1000.0), x * np.float32(0.013)).astype(np.float32)
    threads = 32 * warps
    vector = max(1, min(4, BM * BN // threads))  # the loads' 16 bytes, at most N / T (layout.h)
    want = triton_order_row_sums(v, vector, threads)
    assert out.view(np.uint32).tolist() == want.view(np.uint32).tolist(), (out, want)


def test_unknown_reduce_experiment_is_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", "chian")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_on_host(tmp_path, "row_stats", "i32", (1, 128), 4, 128, 2, 0, ", AXIS=1, REVERSE=False")
    assert "unknown name 'chian'" in (failed.value.stderr or "") + (failed.value.stdout or "")


SUM_OF_SQUARES = '''
import triton.language as tl
import tritium


@tritium.jit
def sum_sq(x_ptr, out_ptr, n):
    x = tl.load(x_ptr + tl.arange(0, 1024))
    tl.store(out_ptr, tl.sum(x * x, axis=0))
'''


@pytest.mark.parametrize("experiment,fmas", [("", 7), ("chain", 7), ("nochain", 4), ("chain,nochain", 4)])
def test_chained_sum_of_squares_contracts_into_fma(tmp_path, monkeypatch, experiment, fmas):
    # 8 elements per thread (1024 over 4 warps): left to right (the default since session 17,
    # Triton's order), x0*x0 then 7 fma; as a tree (nochain), four products pair into fma and
    # three adds join them.
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    source = tmp_path / "k.py"
    source.write_text(SUM_OF_SQUARES)
    ptx = subprocess.run([CLI, "compile", str(source), "--kernel", "sum_sq", "--signature", "*fp32:16, *fp32:16, i32",
                          "--num-warps", "4", "--emit", "ptx"], capture_output=True, text=True, check=True).stdout
    assert len(re.findall(r"\bfma\.rn\.f32\b", ptx)) == fmas


@pytest.mark.parametrize("experiment", ["noiv32", ""])
@pytest.mark.parametrize("start,count", [(2147483600, 7), (2147483632, 3), (0, 306783379), (2147483648 - 16, 3)])
def test_a_range_ending_at_int_max_does_not_wrap(tmp_path, monkeypatch, experiment, start, count):
    # By default (iv32) such loops count in 32 bits: the iteration after the last would wrap
    # past 2^31 - 1; upper - iv > step (unsigned) stops it. noiv32 counts in 64 bits.
    if count > 1000 and experiment == "noiv32":
        pytest.skip("the 64-bit count runs the same loop; once is enough")
    monkeypatch.setenv("TRITIUM_REDUCE_EXPERIMENT", experiment)
    if count > 1000:
        start = 2147483647 - 7 * 40 + 1  # a short run in the emulator (40 iterations)
        count = 40
    x, out, ll, ptx = run_on_host(tmp_path, "range_to_int_max", "i32", (1, 32), 1, 64, 32, start,
                                  ", AXIS=1, REVERSE=False")
    assert out[0] == count
    assert out[1] == start + 7 * (count - 1)
    assert out[2] == x[:count].sum()
    assert ("phi i64" in ll) == (experiment == "noiv32")  # the iv's width



def gather_reference(x, idx, axis):
    inside = (idx >= 0) & (idx < x.shape[axis])
    got = np.take_along_axis(x, np.where(inside, idx, 0), axis)
    return np.where(inside, got, np.zeros((), dtype=x.dtype))


@pytest.mark.parametrize("ty", ["fp32", "fp16", "i8"])
@pytest.mark.parametrize("axis", [0, 1])
@pytest.mark.parametrize("tile,k,warps", [((128, 64), 256, 4), ((16, 64), 8, 1), ((32, 8), 64, 2), ((8, 256), 16, 8)])
def test_gathers_through_shared_memory(tmp_path, ty, axis, tile, k, warps):
    BM, BN = tile
    idx_shape = (k, BN) if axis == 0 else (BM, k)
    n = idx_shape[0] * idx_shape[1]
    stride = 5
    x, out, ll, ptx = run_on_host(tmp_path, "gather_tile", ty, tile, warps, BM * BN, n, stride, f", AXIS={axis}, K={k}")
    assert "ld.shared" in ptx and "bar.sync" in ptx
    i = np.arange(idx_shape[0])[:, None]
    j = np.arange(idx_shape[1])[None, :]
    idx = (i * 7 + j * 13 + stride) % (tile[axis] + 2) - 1
    want = gather_reference(x.reshape(tile), idx, axis)
    assert np.array_equal(out.reshape(idx_shape), want)


@pytest.mark.parametrize("axis", [0, 1, 2])
@pytest.mark.parametrize("shape,warps", [((8, 16, 8), 4), ((16, 8, 32), 2), ((32, 4, 16), 8)])
def test_gathers_of_three_dimensional_blocks(tmp_path, axis, shape, warps):
    idx_shape = list(shape)
    idx_shape[axis] *= 2
    n = int(np.prod(idx_shape))
    stride = 3
    x, out, ll, ptx = run_on_host(tmp_path, "gather_cube", "i32", shape, warps, int(np.prod(shape)), n, stride,
                                  f", AXIS={axis}")
    a, b, c = np.indices(idx_shape)
    idx = (a * 5 + b * 3 + c * 11 + stride) % (shape[axis] + 2) - 1
    assert np.array_equal(out.reshape(idx_shape), gather_reference(x.reshape(shape), idx, axis))


@pytest.mark.parametrize("tile,warps", [((64, 64), 4), ((128, 32), 2), ((32, 128), 8)])
def test_gather_between_column_layouts(tmp_path, tile, warps):
    BM, BN = tile
    stride = BM  # the source is column-major, BM apart
    x, out, ll, ptx = run_on_host(tmp_path, "gather_columns", "fp32", tile, warps, BM * BN, BM * BN, stride)
    src = x.reshape(BN, BM).T
    m, n = np.indices(tile)
    idx = (m * 3 + n * 5 + stride) % BM
    assert np.array_equal(out.reshape(BN, BM).T, np.take_along_axis(src, idx, 0))


MAP_KERNELS = textwrap.dedent('''
    import tritium
    import tritium.language as tl


    @tritium.jit
    def collatz(n):
        # Steps to 1 from n (a loop per element, each its own length) and a branch per step.
        steps = 0
        while n != 1:
            if n % 2 == 0:
                n = n // 2
            else:
                n = 3 * n + 1
            steps += 1
        return steps, n


    @tritium.jit
    def clipped(x, lo):
        if x < lo:
            return lo
        return x * 2


    @tritium.jit
    def map_kernel(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        steps, one = tl.map_elementwise(collatz, tl.abs(x) + 1)
        tl.store(out_ptr + offs, steps * 10 + one)
        tl.store(out_ptr + BM * BN + offs, tl.map_elementwise(clipped, x, 5))


    @tritium.jit
    def reversed4(x0, x1, x2, x3):
        return x3, x2, x1, x0


    @tritium.jit
    def bits_and_swap(n0, n1, y0, y1):
        # Two elements per call: a loop running while either has bits left, and the pair's
        # values exchanged (which elements share a call shows in the result).
        b0 = 0
        b1 = 0
        while n0 > 0 or n1 > 0:
            if n0 > 0:
                b0 += 1
            if n1 > 0:
                b1 += 1
            n0 = n0 // 2
            n1 = n1 // 2
        return b0, b1, y1, y0


    @tritium.jit
    def up_down(x0, x1, s0, s1):
        return x0 + 1 + s0, x1 - 1 - s1, x0 - s0, x1 + s1


    @tritium.jit
    def map_pack_kernel(x_ptr, out_ptr, stride, BM: tl.constexpr, BN: tl.constexpr):
        offs = tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]
        x = tl.load(x_ptr + offs)
        tl.store(out_ptr + offs, tl.map_elementwise(reversed4, x, pack=4)[0])
        bits, swapped = tl.map_elementwise(bits_and_swap, tl.abs(x), x, pack=2)
        tl.store(out_ptr + BM * BN + offs, bits * 1000 + swapped)
        # Uniform inputs (a splat and a scalar): a call's two results still differ.
        up, down = tl.map_elementwise(up_down, tl.full((BM, BN), 3, tl.int32) + stride, stride, pack=2)
        tl.store(out_ptr + 2 * BM * BN + offs, up * 10 + down)
''')


def collatz_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((4, 256), 8)])
def test_map_elementwise_runs_each_element_its_own_path(tmp_path, tile, warps):
    """tl.map_elementwise's region emitted once per register: divergent loops and branches
    per element (each thread its own trip counts), two results from one call."""
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "map_kernel", "i32", tile, warps, n, 2 * n, 0, kernels=MAP_KERNELS)
    steps = np.array([collatz_steps(abs(int(v)) + 1) for v in x], np.int32)
    assert np.array_equal(out[:n], steps * 10 + 1)
    assert np.array_equal(out[n:], np.where(x < 5, 5, x * 2))


@pytest.mark.parametrize("tile,warps", [((8, 16), 1), ((32, 64), 4), ((4, 256), 8), ((64, 2), 1), ((128, 1), 1)])
def test_map_elementwise_pack_takes_consecutive_elements(tmp_path, tile, warps):
    """tl.map_elementwise(pack=P): one region per P registers of a thread, which hold P
    consecutive elements of a row (vector_widths asks for V >= P), input i's P registers its
    arguments in turn and output r's P yields its elements: a function reversing its four
    elements reverses each aligned run of four, as the interpreter does; a loop in a call runs
    for both elements of a pair; rows narrower than P put a group across rows (row-major);
    uniform inputs still give each element of a call its own result.
    (Blocks with fewer than P elements per thread replicate, their loads masked by owner,
    which this host driver does not translate: the GPU test covers them.)"""
    BM, BN = tile
    n = BM * BN
    x, out, ll, ptx = run_on_host(tmp_path, "map_pack_kernel", "i32", tile, warps, n, 3 * n, 16, kernels=MAP_KERNELS)
    assert np.array_equal(out[:n], x.reshape(-1, 4)[:, ::-1].reshape(-1))
    bits = np.array([int(abs(int(v))).bit_length() for v in x], np.int32)
    assert np.array_equal(out[n:2 * n], bits * 1000 + x.reshape(-1, 2)[:, ::-1].reshape(-1))
    # x = 3 + 16, s = 16: up (19 + 1 + 16, 19 - 1 - 16) = (36, 2), down (19 - 16, 19 + 16) = (3, 35).
    assert np.array_equal(out[2 * n:], np.tile([363, 55], n // 2))
