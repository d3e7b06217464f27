"""Triton's eleven tutorials on the GPU: the programs of tests/python/triton_programs (run
in the interpreter by tests/python/test_tutorials.py) with torch CUDA tensors at moderate
sizes, against float64 references computed with numpy on the host. Programmatic dependent
launch (11) needs sm_90; without it that test skips and says so."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import test_tutorials as tut  # noqa: E402  (tests/python: loads the tutorial programs)

T = tut.T


def cuda(x):
    return torch.from_numpy(np.ascontiguousarray(x)).cuda()


def host(x):
    torch.cuda.synchronize()
    return x.detach().cpu().numpy()


def close(got, want, atol, rtol):
    np.testing.assert_allclose(host(got).astype(np.float64), want, atol=atol, rtol=rtol)


def capability():
    major, minor = torch.cuda.get_device_capability()
    return 10 * major + minor


@pytest.mark.parametrize("size", [98432, 1 << 20, 4099])
def test_01_vector_add_on_gpu(rng, size):
    a, b = rng.random(size, dtype=np.float32), rng.random(size, dtype=np.float32)
    np.testing.assert_array_equal(host(T["01"].vector_add(cuda(a), cuda(b))), a + b)


@pytest.mark.parametrize("rows,cols", [(1823, 781), (4096, 2048), (333, 5000)])
def test_02_fused_softmax_on_gpu(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y, programs = T["02"].softmax(cuda(x))
    e = np.exp(x.astype(np.float64) - x.max(1, keepdims=True))
    close(y, e / e.sum(1, keepdims=True), 1e-6, 1e-4)
    assert 0 < programs <= rows  # from the compiled kernel's registers and shared memory


@pytest.mark.parametrize("activation", ["", "leaky_relu"])
@pytest.mark.parametrize("M,N,K", [(512, 512, 512), (1024, 768, 333), (256, 1536, 1024)])
def test_03_matmul_on_gpu(rng, M, N, K, activation):
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    want = a.astype(np.float64) @ b.astype(np.float64)
    if activation:
        want = np.where(want >= 0, want, 0.01 * want)
    close(T["03"].matmul(cuda(a), cuda(b), activation), want, 0.1, 1e-2)


def test_04_dropout_on_gpu(rng):
    x = rng.random(1 << 20).astype(np.float32) + 0.5
    keep = (rng.random(x.size) > 0.3).astype(np.int8)
    close(T["04"].masked_dropout(cuda(x), cuda(keep), 0.3), np.where(keep != 0, x / 0.7, 0.0), 1e-6, 1e-6)
    first = host(T["04"].seeded_dropout(cuda(x), 0.25, seed=1234))
    np.testing.assert_array_equal(first, host(T["04"].seeded_dropout(cuda(x), 0.25, seed=1234)))
    kept = first != 0
    assert 0.24 < 1 - kept.mean() < 0.26
    np.testing.assert_allclose(first[kept], x[kept] / 0.75, rtol=1e-6)
    # The same Philox stream as the interpreter's: the same elements kept. The kept values may
    # differ by an ulp: fp32 `/` is div.full on the GPU (as in Triton), exact in the interpreter.
    again = T["04"].seeded_dropout(x, 0.25, seed=1234)
    np.testing.assert_array_equal(kept, again != 0)
    np.testing.assert_array_max_ulp(first, again, maxulp=2)


@pytest.mark.parametrize("rows,cols", [(1151, 8192), (512, 4096), (64, 1000)])
def test_05_layer_norm_on_gpu(rng, rows, cols):
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    w = rng.standard_normal(cols).astype(np.float32)
    b = rng.standard_normal(cols).astype(np.float32)
    dy = rng.standard_normal((rows, cols)).astype(np.float32)
    y, mean, rstd, block, warps = T["05"].forward(cuda(x), cuda(w), cuda(b))
    x64 = x.astype(np.float64)
    inv = 1 / np.sqrt(x64.var(1, keepdims=True) + 1e-5)
    xhat = (x64 - x64.mean(1, keepdims=True)) * inv
    close(y, xhat * w + b, 1e-4, 1e-4)
    dx, dw, db = T["05"].backward(cuda(dy), cuda(x), cuda(w), mean, rstd, block, warps)
    wdy = w * dy.astype(np.float64)
    close(dx, inv * (wdy - xhat * (wdy * xhat).mean(1, keepdims=True) - wdy.mean(1, keepdims=True)), 1e-4, 1e-3)
    close(dw, (dy * xhat).sum(0), 1e-2, 1e-3)
    close(db, dy.sum(0, dtype=np.float64), 1e-2, 1e-3)


@pytest.mark.parametrize("host_descriptors", [True, False])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("n,d", [(512, 64), (1024, 128)])
def test_06_fused_attention_on_gpu(rng, causal, host_descriptors, n, d):
    Z, H = 2, 4
    q, k, v = (rng.standard_normal((Z, H, n, d)).astype(np.float16) * 0.5 for _ in range(3))
    do = rng.standard_normal((Z, H, n, d)).astype(np.float16)
    scale = 1 / np.sqrt(d)
    want_o, want_dq, want_dk, want_dv = tut.attention_reference(q, k, v, do, causal, scale)
    o, lse = T["06"].forward(cuda(q), cuda(k), cuda(v), causal, scale, host_descriptors=host_descriptors)
    close(o, want_o, 4e-3, 1e-2)
    dq, dk, dv = T["06"].backward(cuda(q), cuda(k), cuda(v), o, lse, cuda(do), causal, scale)
    for got, want in ((dq, want_dq), (dk, want_dk), (dv, want_dv)):
        close(got, want, 2e-2, 2e-2)


def test_07_libdevice_on_gpu(rng):
    x = rng.random(98432).astype(np.float32)
    close(T["07"].asin(cuda(x)), np.arcsin(x.astype(np.float64)), 1e-6, 1e-6)
    close(T["07"].asin(cuda(x), extern_libs={"libdevice": "/any/libdevice.10.bc"}), np.arcsin(x.astype(np.float64)),
          1e-6, 1e-6)


def test_08_grouped_gemm_on_gpu(rng):
    sizes = [1024, 512, 256, 128]
    a = [rng.random((s, s)).astype(np.float16) for s in sizes]
    b = [rng.random((s, s)).astype(np.float16) for s in sizes]
    outs = T["08"].grouped_matmul([cuda(x) for x in a], [cuda(y) for y in b])
    for x, y, c in zip(a, b, outs):
        close(c, x.astype(np.float64) @ y.astype(np.float64), 0.5, 2e-3)


@pytest.mark.parametrize("form", ["pointers", "host descriptors", "device descriptors"])
@pytest.mark.parametrize("subtile", [False, True])
@pytest.mark.parametrize("M,N,K", [(1024, 1024, 512), (500, 700, 256)])
def test_09_persistent_matmul_on_gpu(rng, form, subtile, M, N, K):
    if form == "pointers" and subtile:
        pytest.skip("the pointer form has no epilogue subtiling (as in the tutorial)")
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    t = T["09"]
    if form == "pointers":
        c = t.matmul(cuda(a), cuda(b))
    elif form == "host descriptors":
        if N % 8:
            # A host TensorDescriptor needs 16-byte aligned strides; c's rows (N fp16) are not.
            with pytest.raises(AssertionError, match="strides must be 16-byte aligned"):
                t.matmul_tma(cuda(a), cuda(b.T), epilogue_subtile=subtile)
            return
        c = t.matmul_tma(cuda(a), cuda(b.T), epilogue_subtile=subtile)
    else:
        c = t.matmul_descriptor(cuda(a), cuda(b.T), epilogue_subtile=subtile)
    close(c, a.astype(np.float64) @ b.astype(np.float64), 0.1, 1e-2)


@pytest.mark.parametrize("formats", [("e4m3", "e4m3"), ("e2m1", "e2m1"), ("e4m3", "e2m1")])
def test_10_block_scaled_matmul_on_gpu(rng, formats):
    t = T["10"]
    M, N, K = 256, 512, 1024
    a, a_values = t.random_operand(rng, M, K, formats[0])
    b, b_values = t.random_operand(rng, N, K, formats[1])
    sa, sa_values = t.random_scales(rng, M, K)
    sb, sb_values = t.random_scales(rng, N, K)
    out = t.block_scaled_matmul(cuda(a), cuda(sa), cuda(b), cuda(sb), M, N, K, *formats)
    close(out, t.reference(a_values, sa_values, b_values, sb_values), 1e-1, 1e-3)


@pytest.mark.parametrize("pdl", [True, False])
def test_11_programmatic_dependent_launch_on_gpu(rng, pdl):
    if pdl and capability() < 90:
        pytest.skip("programmatic dependent launch needs sm_90 or newer")
    a = rng.random(1 << 22, dtype=np.float32)
    b = rng.random(1 << 22, dtype=np.float32)
    np.testing.assert_array_equal(host(T["11"].chained(cuda(a), cuda(b), launch_pdl=pdl)), (a + b) + b)
    handle = T["11"].pdl_add_kernel[(1,)](cuda(a), cuda(b), cuda(a), 16, BLOCK_SIZE=1024, USE_GDC=pdl, launch_pdl=pdl)
    assert handle.metadata.launch_pdl == pdl
    if capability() >= 90:
        assert ("griddepcontrol.wait" in handle.asm["ptx"]) == pdl
