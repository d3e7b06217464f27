"""The NVPTX emitter's layouts checked without a GPU: a kernel's LLVM IR (`tritium compile
--emit llvm`) is retargeted to the host (address spaces dropped, %tid.x read from a global,
the barrier a no-op, shared memory a plain array), compiled with llc, and every thread of the
CTA is run in turn, twice: the first pass fills shared memory, so in the second every read
of a kernel with one round trip sees every thread's write, and the stores land exactly as on
the GPU. Kernels: coalesced column-major reads and transposed stores (gpu/coalesce.h), with
the conversion between layouts through padded shared memory, and a column-major copy that
needs none; fp32, fp16 and int8, tiles 64x64 / 128x32 / 16x256, 1-8 warps. Skipped visibly
without llc (LLVM) or a C compiler."""

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
    def cube(x_ptr, out_ptr, stride, A: tl.constexpr, B: tl.constexpr, C: tl.constexpr):
        # x[a, b, c] at a * C * stride + b + c * stride: contiguous along the middle axis.
        a = tl.arange(0, A)
        b = tl.arange(0, B)
        c = tl.arange(0, C)
        x = tl.load(x_ptr + a[:, None, None] * (C * stride) + b[None, :, None] + c[None, None, :] * stride)
        tl.store(out_ptr + a[:, None, None] * (B * C) + b[None, :, None] * C + c[None, None, :], x)
''')

DRIVER = r'''
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
int emu_tid;
void emu_barrier(void) {}
void KERNEL(void*, void*, int);
int main(int argc, char** argv) {
  int nin = atoi(argv[1]), nout = atoi(argv[2]), threads = atoi(argv[3]), stride = atoi(argv[4]);
  CTYPE* x = aligned_alloc(64, (sizeof(CTYPE) * nin + 63) / 64 * 64);
  CTYPE* out = aligned_alloc(64, (sizeof(CTYPE) * nout + 63) / 64 * 64);
  for (int i = 0; i < nin; ++i) x[i] = (CTYPE)(i % 97 + 1);
  memset(out, 0, sizeof(CTYPE) * nout);
  for (int pass = 0; pass < 2; ++pass)
    for (emu_tid = 0; emu_tid < threads; ++emu_tid) KERNEL(x, out, stride);
  fwrite(x, sizeof(CTYPE), nin, stdout);
  fwrite(out, sizeof(CTYPE), nout, stdout);
  return 0;
}
'''

TYPES = {"fp32": ("float", np.float32), "fp16": ("_Float16", np.float16), "i8": ("signed char", np.int8)}


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
    ll = re.sub(r"(tail )?call void @llvm\.nvvm\.barrier[.a-z]*\(i32 0\)", "call void @emu_barrier()", ll)
    ll = re.sub(r"declare [^\n]*@llvm\.nvvm\.read\.ptx\.sreg\.tid\.x[^\n]*", "@emu_tid = external global i32", ll)
    ll = re.sub(r"declare void @llvm\.nvvm\.barrier[.a-z]*\(i32\)[^\n]*", "declare void @emu_barrier()", ll)
    return re.sub(r'"nvvm\.maxntid"="\d+"', "", ll)


def run_on_host(tmp_path, kernel, ty, tile, warps, nin, nout, stride):
    ctype, nptype = TYPES[ty]
    source = tmp_path / "kernels.py"
    source.write_text(KERNELS)
    shape = "".join(f", {name}={size}" for name, size in zip("ABC" if len(tile) == 3 else ("BM", "BN"), tile))
    signature = f"*{ty}:16, *{ty}:16, i32:16{shape}"
    def emit(what):
        return subprocess.run([CLI, "compile", str(source), "--kernel", kernel, "--signature", signature,
                               "--num-warps", str(warps), "--emit", what], capture_output=True, text=True,
                              check=True).stdout
    ll = emit("llvm")
    assert "asm" not in ll, "inline PTX cannot run on the host"
    (tmp_path / "k.ll").write_text(host_ir(ll))
    subprocess.run([LLC, "-O1", "-relocation-model=pic", "-filetype=obj", str(tmp_path / "k.ll"), "-o",
                    str(tmp_path / "k.o")], check=True)
    (tmp_path / "driver.c").write_text(DRIVER.replace("KERNEL", kernel).replace("CTYPE", ctype))
    subprocess.run([CC, "-O1", str(tmp_path / "driver.c"), str(tmp_path / "k.o"), "-o", str(tmp_path / "run")], check=True)
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
