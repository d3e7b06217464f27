# Runs the PTX of gen (tritium's nvptx code generator) on the GPU with CuPy, against numpy.
import json, sys, traceback
import numpy as np
import cupy as cp

rng = np.random.default_rng()
results = []

def load(name):
    meta = json.load(open(name + ".json"))
    mod = cp.RawModule(path=name + ".ptx")
    fn = mod.get_function(meta["kernel"])
    def launch(grid, *args):
        fn((grid,), (32 * meta["num_warps"],), args, shared_mem=meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
    return launch

def check(name, ok, detail=""):
    results.append((name, bool(ok), detail))

def run(name, body):
    try:
        body(name)
    except Exception as e:
        check(name, False, "exception: " + repr(e) + traceback.format_exc()[-600:])

def t_add(name, block):
    k = load(name)
    for n in (1, 1000, 100003):
        x = rng.standard_normal(n).astype(np.float32); y = rng.standard_normal(n).astype(np.float32)
        out = cp.full(n + 64, np.nan, dtype=cp.float32)
        k((n + block - 1) // block, cp.asarray(x), cp.asarray(y), out, np.int32(n))
        o = out.get()
        check(f"{name} n={n}", np.array_equal(o[:n], x + y) and np.isnan(o[n:]).all())

def t_741(name, block):
    k = load(name)
    idx = (np.arange(2000, dtype=np.int64) % 196)
    val = np.arange(1, 2001, dtype=np.float32)
    out = cp.zeros(2 * 196 * 1000, dtype=cp.float32)
    k((2000 + block - 1) // block, cp.asarray(idx), cp.asarray(val), out, np.int32(2000))
    ref = np.zeros((2, 196, 1000), np.float32)
    for i in range(2000):
        ref[i // 1000, idx[i], i % 1000] = val[i]
    check(name, np.array_equal(out.get(), ref.reshape(-1)))

def t_count(name):
    k = load(name)
    g = 5000
    counter = cp.zeros(1, cp.int32); out = cp.full(g, -1, cp.int32)
    k(g, counter, out)
    check(name, counter.get()[0] == g and np.array_equal(np.sort(out.get()), np.arange(g)), f"counter {counter.get()}")

def t_hist(name):
    k = load(name)
    n = 100001
    x = rng.integers(0, 1000, n).astype(np.int32)
    bins = cp.zeros(16, cp.int32); fb = cp.zeros(16, cp.float32)
    k((n + 255) // 256, cp.asarray(x), bins, fb, np.int32(n))
    ref = np.bincount(x % 16, minlength=16)
    check(name, np.array_equal(bins.get(), ref) and np.array_equal(fb.get(), ref * 0.5), f"{bins.get()} vs {ref}")

def t_fminmax(name):
    k = load(name)
    n = 50000
    x = (rng.standard_normal(n) * 100).astype(np.float32)
    out = cp.asarray(np.array([-np.inf] * 4 + [np.inf] * 4, np.float32))
    k((n + 511) // 512, cp.asarray(x), out, np.int32(n))
    o = out.get()
    ref_max = [x[i::4].max() for i in range(4)]; ref_min = [x[i::4].min() for i in range(4)]
    check(name, np.array_equal(o[:4], ref_max) and np.array_equal(o[4:], ref_min), f"{o} vs {ref_max} {ref_min}")

def t_inplace(name):
    k = load(name)
    n = 100000
    x = rng.standard_normal(n).astype(np.float32)
    d = cp.asarray(x)
    k((n + 1023) // 1024, d, np.int32(n))
    check(name, np.array_equal(d.get(), x + 1))

def t_bcast(name, bm, bn):
    k = load(name)
    x = rng.standard_normal(bm).astype(np.float32); y = rng.standard_normal(bn).astype(np.float32)
    out = cp.full(bm * bn, np.nan, cp.float32)
    k(1, cp.asarray(x), cp.asarray(y), out)
    ref = x[:, None] * np.float32(1000.0) + y[None, :]
    o = out.get().reshape(bm, bn)
    check(name, np.allclose(o, ref, rtol=1e-6, atol=1e-4), f"max err {np.nanmax(np.abs(o - ref))}")

def t_loops(name):
    k = load(name)
    B = 64
    for n in (0, 1, 5, 64, 200, 1000):
        x = rng.standard_normal(n + 2 * B).astype(np.float32)
        d = cp.asarray(x)
        k(1, d, np.int32(n))
        acc = np.zeros(B, np.float64)
        for i in range(0, n, B):
            v = x[i:i + B].astype(np.float64)
            acc = acc + v if i > 3 else acc * 2 + 1
        i = 0
        while i < n:
            i += 7
        for j in range(n, 0, -3):
            acc = acc - j
        check(f"{name} n={n}", np.allclose(d.get()[:B], acc + i, rtol=1e-5, atol=1e-3), f"{d.get()[:4]} vs {acc[:4] + i}")

def t_halfs(name):
    k = load(name)
    n = 1000
    a = (rng.standard_normal(n) * 4).astype(np.float16); b = rng.standard_normal(n).astype(np.float16)
    c = cp.zeros(n, cp.int8); out = cp.zeros(n, cp.float16)
    k((n + 127) // 128, cp.asarray(a), cp.asarray(b), c, out, np.int32(n))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    cc = (a32 * b32 + a32 - b32)
    e = np.maximum(cc * 2, 1.0) / a32
    ok1 = np.allclose(out.get().astype(np.float32), e.astype(np.float16).astype(np.float32), rtol=2e-2, atol=1e-2)
    ci = (cc.astype(np.float16) > a).astype(np.int32) + np.trunc(np.trunc(a32) / 3).astype(np.int32)
    mism = np.nonzero(c.get().astype(np.int32) != ci)[0]
    check(name, ok1 and len(mism) <= 3, f"out ok {ok1}, int mismatches {len(mism)}")

def t_ints(name):
    k = load(name)
    B = 256
    x = rng.integers(-2**31, 2**31, B, dtype=np.int64).astype(np.int32)
    x[:8] = [7, -7, 7, -7, 2**31 - 1, -2**31, 100, -100]
    y = rng.integers(-40, 41, B).astype(np.int32)
    y[y == 0] = 3
    y[:8] = [2, 2, -2, -2, 31, 33, 1, -1]
    s = np.int32(-2**30)
    z = cp.full(B, 12345, cp.int32)
    k(1, cp.asarray(x), cp.asarray(y), z, s)
    def w(v): return ((int(v) + 2**31) % 2**32) - 2**31
    ref = []
    for xi, yi in zip(x.tolist(), y.tolist()):
        if not xi > s:
            ref.append(12345); continue
        q = abs(xi) // abs(yi) * (1 if (xi >= 0) == (yi >= 0) else -1)
        r = xi - q * yi
        uy = yi % 2**32
        shl = 0 if uy >= 32 else w(xi << uy)
        shr = (-1 if xi < 0 else 0) if uy >= 32 else xi >> uy
        ref.append(w(w(q) + r + shl + shr + min(xi, yi) + (xi ^ yi)))
    ref[0] = int(s)
    got = z.get().tolist()
    bad = [(i, x[i], y[i], got[i], ref[i]) for i in range(B) if got[i] != ref[i]]
    check(name, not bad, str(bad[:5]))

def t_math(name):
    k = load(name)
    B = 1024
    x = rng.uniform(0.1, 10, B).astype(np.float32)
    y = cp.zeros(8 * B, cp.float32)
    k(1, cp.asarray(x), y)
    o = y.get().reshape(8, B).astype(np.float64); xd = x.astype(np.float64)
    x37 = (x * np.float32(37.0)).astype(np.float64)
    refs = [np.exp(xd), np.log(xd), np.sqrt(xd), 1 / np.sqrt(xd), np.sin(x37), np.cos(x37), np.fmod(xd, np.float64(np.float32(0.37))),
            np.floor((x * np.float32(3)).astype(np.float64)) + np.ceil((x * np.float32(5)).astype(np.float64))]
    names = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "fmod", "floorceil"]
    for i, (nm, r) in enumerate(zip(names, refs)):
        err = np.max(np.abs(o[i] - r) / np.maximum(np.abs(r), 1.0))
        check(f"{name} {nm}", err < (2e-6 if nm in ("sqrt", "floorceil", "fmod") else 2e-5), f"err {err}")

def t_spin(name):
    k = load(name)
    B = 64
    x = rng.standard_normal(B).astype(np.float32)
    out = cp.full(B * B, np.nan, cp.float32)
    k(3, cp.asarray(np.array([3], np.int32)), cp.asarray(x), out)
    ref = np.broadcast_to((x + 2)[:, None], (B, B))
    check(name, np.array_equal(out.get().reshape(B, B), ref))

def t_lock(name):
    k = load(name)
    lock = cp.zeros(1, cp.int32); counter = cp.zeros(1, cp.int32)
    k(2000, lock, counter)
    check(name, counter.get()[0] == 2000 and lock.get()[0] == 0, f"counter {counter.get()}")

run("add_1024_w4", lambda n: t_add(n, 1024))
run("add_256_w8", lambda n: t_add(n, 256))
run("add_64_w4", lambda n: t_add(n, 64))
run("add_1024_w1_sm80", lambda n: t_add(n, 1024))
run("issue741_1024", lambda n: t_741(n, 1024))
run("issue741_128", lambda n: t_741(n, 128))
run("count_w4", t_count)
run("hist_w4", t_hist)
run("fminmax_w4", t_fminmax)
run("inplace_w4", t_inplace)
run("bcast_32x64_w4", lambda n: t_bcast(n, 32, 64))
run("bcast_64x16_w1", lambda n: t_bcast(n, 64, 16))
run("bcast_16x256_w8", lambda n: t_bcast(n, 16, 256))
run("loops_w2", t_loops)
run("halfs_w4", t_halfs)
run("halfs_w4_sm80", t_halfs)
run("ints_w4", t_ints)
run("math32_w4", t_math)
run("spin_w2", t_spin)
run("cas_lock_w1", t_lock)
def t_atom_types(name):
    k = load(name)
    n = 1000
    h = cp.zeros(8, cp.float16); d = cp.zeros(8, cp.float64); l = cp.full(8, -5, cp.int64)
    c = cp.asarray(np.array([0, 1, 2, 3, 9, 9, 9, 9], np.int32)); x = cp.zeros(n, cp.float16)
    k((n + 63) // 64, h, d, l, c, x, np.int32(n))
    cnt = np.bincount(np.arange(n) % 8, minlength=8)
    lmax = np.array([max(i for i in range(n) if i % 8 == j) * 10**9 for j in range(8)])
    ok = (np.array_equal(h.get().astype(np.float64), cnt * 0.5) and np.array_equal(d.get(), cnt * 0.25)
          and np.array_equal(l.get(), lmax) and np.array_equal(c.get(), [100, 101, 102, 103, 9, 9, 9, 9])
          and np.array_equal(x.get(), np.arange(n).astype(np.float16)))
    check(name, ok, f"{h.get()} {d.get()} {l.get()} {c.get()} {x.get()[:5]}")

def t_one_elem(name):
    k = load(name)
    B = 256
    for flag in (0, 1):
        x = rng.standard_normal(4).astype(np.float32)
        out = cp.full(2 * B, np.nan, cp.float32)
        fn_meta = json.load(open(name + ".json"))
        mod = cp.RawModule(path=name + ".ptx"); f = mod.get_function(fn_meta["kernel"])
        f((1, 2), (32 * fn_meta["num_warps"],), (cp.asarray(x), out, np.int32(flag)), shared_mem=fn_meta["shared"])
        cp.cuda.runtime.deviceSynchronize()
        check(f"{name} flag={flag}", np.array_equal(out.get(), np.full(2 * B, x[0] + flag, np.float32)))

def t_loop64(name):
    k = load(name)
    for n in (0, 1, 10, 100000):
        d = cp.zeros(32, cp.int64)
        k(1, d, np.int64(n))
        check(f"{name} n={n}", np.array_equal(d.get(), np.full(32, sum(range(0, n, 3)))))

run("atom_types_w4", t_atom_types)
run("one_elem_w4", t_one_elem)
run("loop64_w1", t_loop64)
fails = [r for r in results if not r[1]]
for r in results:
    print(("PASS " if r[1] else "FAIL ") + r[0] + ("" if r[1] else "  " + r[2]))
print(f"{len(results) - len(fails)} passed, {len(fails)} failed")
