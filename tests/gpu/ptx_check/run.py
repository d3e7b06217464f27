# The vectorization GPU check: runs PTX that tritium's nvptx code generator wrote (gen, from
# gpu_kernels.py per configs.txt) with CuPy and compares against numpy. Fresh random inputs
# each run; outputs poisoned (NaN / sentinel) before each launch so unwritten elements show.
# Usage: cd build-vec/gpu_check && python3 run.py   (exit status 1 when anything fails)
import json, os, shutil, subprocess, sys, tempfile, traceback
import numpy as np
import cupy as cp

rng = np.random.default_rng()
results = []

def load(name):
    meta = json.load(open(name + ".json"))
    fn = cp.RawModule(path=name + ".ptx").get_function(meta["kernel"])
    def launch(grid, *args):
        fn((grid,), (32 * meta["num_warps"],), args, shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
    return launch

def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))

def run(name, body, *extra):
    try:
        body(name, *extra)
    except Exception as e:
        check(name, False, "exception: " + repr(e) + traceback.format_exc()[-600:])

def t_add(name, block, sizes):
    k = load(name)
    for n in sizes:
        x = rng.standard_normal(n).astype(np.float32); y = rng.standard_normal(n).astype(np.float32)
        out = cp.full(n + 64, np.nan, dtype=cp.float32)
        k((n + block - 1) // block, cp.asarray(x), cp.asarray(y), out, np.int32(n))
        o = out.get()
        check(f"{name} n={n}", np.array_equal(o[:n], x + y) and np.isnan(o[n:]).all())

def t_add_unaligned(name, block):
    # Compiled without :16: must work on pointers that are only 4-byte aligned.
    k = load(name)
    for n in (1000, 4099):
        x = rng.standard_normal(n + 1).astype(np.float32); y = rng.standard_normal(n + 3).astype(np.float32)
        out = cp.full(n + 2, np.nan, dtype=cp.float32)
        xd, yd = cp.asarray(x), cp.asarray(y)
        k((n + block - 1) // block, xd[1:], yd[3:], out[1:], np.int32(n))
        o = out.get()
        check(f"{name} n={n}", np.array_equal(o[1:n + 1], x[1:] + y[3:]) and np.isnan(o[0]) and np.isnan(o[n + 1]))

def t_copy_other(name, block, sizes):
    k = load(name)
    for n in sizes:
        grid = (n + block - 1) // block
        x = rng.standard_normal(grid * block).astype(np.float32)
        out = cp.full(grid * block + 32, np.nan, dtype=cp.float32)
        k(grid, cp.asarray(x), out, np.int32(n))
        ref = np.where(np.arange(grid * block) < n, x, np.float32(-1.0))
        o = out.get()
        check(f"{name} n={n}", np.array_equal(o[:grid * block], ref) and np.isnan(o[grid * block:]).all())

def t_masked_copy(name, block, sizes):
    k = load(name)
    for n in sizes:
        x = rng.standard_normal(n).astype(np.float32)
        out = cp.full(n + 64, np.nan, dtype=cp.float32)
        k((n + block - 1) // block, cp.asarray(x), out, np.int32(n))
        o = out.get()
        check(f"{name} n={n}", np.array_equal(o[:n], x) and np.isnan(o[n:]).all())

def t_copy(name, block, dtype, grid=37):
    k = load(name)
    n = grid * block
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
    else:
        x = rng.standard_normal(n).astype(dtype)
    x_d = cp.asarray(x)
    out = cp.asarray(np.full(n + 64, 7, dtype))  # 7: a sentinel in every dtype
    k(grid, x_d, out)
    o = out.get()
    check(name, np.array_equal(o[:n].view(np.uint8), x.view(np.uint8)) and (o[n:] == 7).all())

def t_copy_store_unaligned(name, block):
    k = load(name)
    grid = 13; n = grid * block
    x = rng.standard_normal(n).astype(np.float32)
    out = cp.full(n + 2, np.nan, cp.float32)
    k(grid, cp.asarray(x), out[1:])
    o = out.get()
    check(name, np.array_equal(o[1:n + 1], x) and np.isnan(o[0]) and np.isnan(o[n + 1]))

def t_741(name, block):
    k = load(name)
    for trial in range(3):
        idx = rng.integers(0, 196, 2000).astype(np.int64) if trial else (np.arange(2000, dtype=np.int64) % 196)
        val = rng.standard_normal(2000).astype(np.float32)
        out = cp.full(2 * 196 * 1000, np.nan, dtype=cp.float32)
        k((2000 + block - 1) // block, cp.asarray(idx), cp.asarray(val), out, np.int32(2000))
        ref = np.full((2, 196, 1000), np.nan, np.float32)
        for i in range(2000):
            ref[i // 1000, idx[i], i % 1000] = val[i]
        check(f"{name} trial {trial}", np.array_equal(out.get(), ref.reshape(-1), equal_nan=True))

def t_bcast(name, bm, bn):
    k = load(name)
    x = rng.standard_normal(bm).astype(np.float32); y = rng.standard_normal(bn).astype(np.float32)
    out = cp.full(bm * bn, np.nan, cp.float32)
    k(1, cp.asarray(x), cp.asarray(y), out)
    ref = x[:, None] * np.float32(1000.0) + y[None, :]
    o = out.get().reshape(bm, bn)
    check(name, np.allclose(o, ref, rtol=1e-6, atol=1e-4), f"max err {np.nanmax(np.abs(o - ref))}")

def t_rows(name, bm, bn):
    k = load(name)
    grid = 11
    x = rng.standard_normal(grid * bm * bn).astype(np.float32)
    out = cp.full(grid * bm * bn + 16, np.nan, cp.float32)
    k(grid, cp.asarray(x), out)
    o = out.get()
    check(name, np.array_equal(o[:grid * bm * bn], x + np.float32(1)) and np.isnan(o[grid * bm * bn:]).all())

def t_gather(name, block):
    k = load(name)
    grid = 9; n = grid * block
    x = rng.standard_normal(5000).astype(np.float32)
    idx = rng.integers(0, 5000, n).astype(np.int32)
    out = cp.full(n, np.nan, cp.float32)
    k(grid, cp.asarray(x), cp.asarray(idx), out)
    check(name, np.array_equal(out.get(), x[idx]))

run("add_1024_w4", t_add, 1024, (16, 1024, 100000, 1 << 20))
run("add_1024_w4_odd", t_add, 1024, (1, 1000, 100003))
run("add_256_w4", t_add, 256, (16, 4000, 100000))
run("add_1024_w4_unaligned", t_add_unaligned, 1024)
run("copy_other_1024_w4", t_copy_other, 1024, (16, 1008, 4096 + 48))
run("copy_other_1024_w4_odd", t_copy_other, 1024, (1, 1001, 4097))
run("masked_copy_1024_w4_odd", t_masked_copy, 1024, (1, 1001, 100003))
run("masked_copy_512_w2", t_masked_copy, 512, (16, 1008, 100000))
run("copy_f16_4096_w4", t_copy, 4096, np.float16)
run("copy_bf16_2048_w4", t_copy, 2048, np.uint16)  # bf16 moved as its bits
run("copy_i8_4096_w4", t_copy, 4096, np.int8)
run("copy_i64_1024_w4", t_copy, 1024, np.int64)
run("copy_f32_1024_w4_store_unaligned", t_copy_store_unaligned, 1024)
run("issue741_1024", t_741, 1024)
run("issue741_128", t_741, 128)
run("issue741_2048_w8", t_741, 2048)
run("bcast_32x64_w4", t_bcast, 32, 64)
run("bcast_64x16_w1", t_bcast, 64, 16)
run("bcast_16x256_w8", t_bcast, 16, 256)
run("bcast_128x8_w2", t_bcast, 128, 8)
run("rows_32x64_w4", t_rows, 32, 64)
run("rows_256x2_w4", t_rows, 256, 2)
run("gather_512_w4", t_gather, 512)

fails = [r for r in results if not r[1]]
for r in results:
    print(("PASS " if r[1] else "FAIL ") + r[0] + ("" if r[1] else "  " + r[2]))
print(f"{len(results) - len(fails)} passed, {len(fails)} failed")

# The SASS of a few kernels, where the CUDA tools are installed: 128-bit LDG/STG.
ptxas, cuobjdump = shutil.which("ptxas") or "/usr/local/cuda/bin/ptxas", shutil.which("cuobjdump") or "/usr/local/cuda/bin/cuobjdump"
if os.access(ptxas, os.X_OK) and os.access(cuobjdump, os.X_OK):
    for name in ("add_1024_w4", "add_1024_w4_odd", "copy_f16_4096_w4", "issue741_1024"):
        with tempfile.TemporaryDirectory() as d:
            cubin = os.path.join(d, "k.cubin")
            subprocess.run([ptxas, "-arch=sm_90", name + ".ptx", "-o", cubin], check=True)
            sass = subprocess.run([cuobjdump, "-sass", cubin], capture_output=True, text=True).stdout
            ops = sorted({w for line in sass.splitlines() for w in line.replace(";", " ").split() if w.startswith(("LDG", "STG"))})
            print(f"SASS {name}: " + ", ".join(f"{op} x{sass.count(op + ' ')}" for op in ops))
else:
    print("SASS: ptxas/cuobjdump not found, skipped")
sys.exit(1 if fails else 0)
