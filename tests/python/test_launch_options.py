"""Every launch option Triton takes (issue 10, item 3): accepted by kernel[grid], run and
warmup, validated with errors naming the kernel, and part of the code where they change it."""

import numpy as np
import pytest

import tritium
import tritium.language as tl


@tritium.jit
def axpy(x_ptr, y_ptr, out_ptr, n, a, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask)
    y = tl.load(y_ptr + offs, mask=mask)
    tl.store(out_ptr + offs, a * x + y, mask=mask)


OPTIONS = [
    {},
    {"num_ctas": 1},
    {"num_ctas": 4},
    {"num_warps": 8, "num_stages": 2},
    {"maxnreg": 128},
    {"maxnreg": None},
    {"enable_fp_fusion": False},
    {"launch_cooperative_grid": True},
    {"launch_pdl": True},
    {"debug": True},
    {"stream": None},
    {"arch": None},
    {"arch": "sm80"},
    {"arch": "sm_90a"},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "none")
@pytest.mark.parametrize("how", ["getitem", "run"])
def test_option_is_accepted_and_results_do_not_change(rng, options, how):
    n = 1000
    x = rng.random(n, dtype=np.float32)
    y = rng.random(n, dtype=np.float32)
    out = np.full(n, np.nan, dtype=np.float32)
    if how == "getitem":
        h = axpy[(8,)](x, y, out, n, 1.5, BLOCK=128, **options)
    else:
        h = axpy.run(x, y, out, n, 1.5, BLOCK=128, grid=(8,), **options)
    np.testing.assert_allclose(out, np.float32(1.5) * x + y, rtol=1e-6)
    for name, value in options.items():
        if name in ("num_ctas", "num_warps", "num_stages", "debug", "launch_cooperative_grid",
                    "launch_pdl"):
            assert getattr(h.metadata, name) == value
    if "num_ctas" in options:
        assert h.metadata.cluster_dims == (options["num_ctas"], 1, 1)
    if options.get("arch"):  # the target compiled for, here (interpreted) as on a GPU
        sm = int(options["arch"].strip("sm_a"))
        assert h.metadata.target.arch == sm
        assert f".target sm_{sm}" in h.asm["ptx"]


@pytest.mark.parametrize("options, message", [
    ({"num_ctas": 3}, "kernel 'axpy': num_ctas must be a power of 2"),
    ({"num_ctas": 0}, "kernel 'axpy': num_ctas must be a power of 2"),
    ({"maxnreg": 7}, r"kernel 'axpy': maxnreg must be None or in \[16, 255\], got 7"),
    ({"num_warps": 3}, "kernel 'axpy': num_warps must be a power of 2"),
    ({"num_ctas": "two"}, "kernel 'axpy': launch option num_ctas must be an int"),
    ({"arch": "hopper"}, "kernel 'axpy': launch option arch='hopper' must have the form 'sm<NN>'"),
    ({"arch": 80}, "kernel 'axpy': launch option arch=80 must have the form 'sm<NN>'"),
    ({"arch": "sm60"}, "kernel 'axpy': the GPU target sm_60 is too old"),
])
def test_bad_option_values_name_the_kernel(rng, options, message):
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(tritium.LaunchError, match=message):
        axpy[(1,)](x, x, x, 8, 1.0, BLOCK=8, **options)
    with pytest.raises(tritium.LaunchError, match=message):
        axpy.run(x, x, x, 8, 1.0, BLOCK=8, grid=(1,), **options)


def test_unknown_option_names_kernel_and_option():
    x = np.zeros(8, dtype=np.float32)
    with pytest.raises(tritium.LaunchError, match="axpy.*num_ctaz"):
        axpy[(1,)](x, x, x, 8, 1.0, BLOCK=8, num_ctaz=2)
    with pytest.raises(tritium.LaunchError, match="axpy.*num_ctaz"):
        axpy.run(x, x, x, 8, 1.0, BLOCK=8, grid=(1,), num_ctaz=2)


def test_code_changing_options_change_the_ptx():
    sig = "*fp32:16, *fp32:16, *fp32:16, i32, fp32, BLOCK=128"
    try:
        base = axpy.emit("ptx", signature=sig)
    except tritium.CompilationError as e:
        pytest.skip(str(e))
    assert ".maxnreg" not in base
    assert ".maxnreg 40" in axpy.emit("ptx", signature=sig, maxnreg=40)
    cluster = axpy.emit("ptx", signature=sig, num_ctas=2)
    assert "%clusterid.x" in cluster and "%cluster_ctarank" in cluster
    assert ".reqnctapercluster 2, 1, 1" in cluster
    assert "%clusterid" not in base
    assert "fma.rn.f32" in base
    assert "fma.rn.f32" not in axpy.emit("ptx", signature=sig, enable_fp_fusion=False)


@pytest.mark.parametrize("env", [{"TRITON_DEFAULT_FP_FUSION": "0"},
                                 {"TRITIUM_DEFAULT_FP_FUSION": "0"},
                                 {"TRITIUM_DEFAULT_FP_FUSION": "1", "TRITON_DEFAULT_FP_FUSION": "0"}])
def test_default_fp_fusion_env(monkeypatch, env):
    # Triton's name is read when tritium's is unset (test_enable_fp_fusion sets Triton's);
    # tritium's own wins when both are set. An explicit enable_fp_fusion= wins over both.
    sig = "*fp32:16, *fp32:16, *fp32:16, i32, fp32, BLOCK=128"
    monkeypatch.delenv("TRITIUM_DEFAULT_FP_FUSION", raising=False)
    monkeypatch.delenv("TRITON_DEFAULT_FP_FUSION", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    fused = env.get("TRITIUM_DEFAULT_FP_FUSION", env.get("TRITON_DEFAULT_FP_FUSION")) != "0"
    assert ("fma.rn.f32" in axpy.emit("ptx", signature=sig, arch=90)) == fused
    assert "fma.rn.f32" in axpy.emit("ptx", signature=sig, arch=90, enable_fp_fusion=True)
