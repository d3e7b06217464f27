"""Issue 4's regression suite in the interpreter: the seed bugs and their relatives run over
random sizes, alignments and argument values, each kernel twice — specialized as Triton
specializes, and with every parameter in `do_not_specialize` — and the two results must be
identical and match numpy. With TRITIUM_CHECK_AXIS=1 (conftest sets it) every claim of the
axis and range analyses is also checked against the values the interpreter computes.

The kernels are written once, as source text, and loaded twice from temporary modules with
the two decorators, so both variants run exactly the same code.
"""

import importlib.util
import re
import sys

import numpy as np
import pytest

import tritium

KERNELS = '''
import tritium
import tritium.language as tl


@DECORATOR
def scatter_741(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xnumel = 2000
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x2 = xindex
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + x2, xmask)
    tmp1 = tl.load(in_ptr1 + x2, xmask)
    tl.store(out_ptr0 + x0 + (1000*tmp0) + (196000*x1) + tl.zeros([XBLOCK], tl.int32), tmp1, xmask)


@DECORATOR
def scatter_741_arg(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x0 = xindex % 1000
    x1 = (xindex // 1000)
    tmp0 = tl.load(in_ptr0 + xindex, xmask)
    tmp1 = tl.load(in_ptr1 + xindex, xmask)
    tl.store(out_ptr0 + (x0 + 1000 * tmp0 + 196000 * x1), tmp1, xmask)


@DECORATOR
def strided_copy(src, dst, n, stride, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(dst + offs, tl.load(src + offs * stride, mask=mask, other=-1.0), mask=mask)


@DECORATOR
def gather_scatter(idx_ptr, src, dst, n, shift, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    idx = tl.load(idx_ptr + offs, mask=mask, other=0)
    j = (idx + shift) % n
    v = tl.load(src + j, mask=mask & (j >= 0), other=0.0)
    tl.store(dst + (n - 1 - offs), v, mask=mask)


@DECORATOR
def masked_other(x, out, n, k, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    a = tl.load(x + offs, mask=offs < n, other=7.0)
    b = tl.load(x + offs + k, mask=(offs + k < n) & (offs < n), other=-3.0)
    c = tl.load(x + tl.arange(0, BLOCK), mask=tl.arange(0, BLOCK) < BLOCK, other=5.0)
    tl.store(out + offs, a + b + c, mask=offs < n)


@DECORATOR
def atomic_tile_begin(y, BLOCK: tl.constexpr):
    tl.atomic_add(y + tl.program_id(0) * BLOCK, 1)
'''


def unspecialized(match):
    """`@tritium.jit(do_not_specialize=[...])` naming every runtime parameter of the def."""
    params = [p.split(":")[0].strip() for p in match.group(2).split(",")]
    runtime = [p for p, text in zip(params, match.group(2).split(",")) if "constexpr" not in text]
    return f"@tritium.jit(do_not_specialize={runtime!r})\ndef {match.group(1)}({match.group(2)}):"


def load_module(tmp_path, name, specialize):
    path = tmp_path / f"{name}.py"
    if specialize:
        text = KERNELS.replace("@DECORATOR", "@tritium.jit")
    else:
        text = re.sub(r"@DECORATOR\ndef (\w+)\((.*)\):", unspecialized, KERNELS)
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def variants(tmp_path_factory):
    """(specialized, unspecialized) modules holding the same kernels."""
    tmp = tmp_path_factory.mktemp("soundness")
    spec = load_module(tmp, "soundness_specialized", True)
    plain = load_module(tmp, "soundness_unspecialized", False)
    return spec, plain


def both(variants, name, grid, *args):
    """Runs kernel `name` specialized and unspecialized on copies of `args`; returns both."""
    results = []
    for module in variants:
        copies = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        getattr(module, name)[grid](*copies)
        results.append(copies)
    return results


def offset_view(array, offset):
    """A view starting `offset` elements in: its address is no longer 16-byte aligned."""
    return array[offset:] if offset else array


@pytest.mark.parametrize("passed", [2000, 2048, 1000, 1])
@pytest.mark.parametrize("block", [128, 1024])
def test_741_constant_differs_from_argument(variants, rng, passed, block):
    index = rng.integers(0, 196, 2000, dtype=np.int64)
    src = rng.standard_normal(2000).astype(np.float32)
    out = np.full(2 * 196 * 1000, np.nan, np.float32)
    grid = (tritium.cdiv(2000, block),)
    (a, b) = both(variants, "scatter_741", grid, index, src, out, passed, block)
    np.testing.assert_array_equal(a[2], b[2])
    ref = out.copy().reshape(2, 196, 1000)
    j = np.arange(2000)
    ref[j // 1000, index, j % 1000] = src
    np.testing.assert_array_equal(a[2].reshape(2, 196, 1000), ref)


@pytest.mark.parametrize("xnumel", [1, 16, 1000, 1997, 2000])
def test_741_argument_form(variants, rng, xnumel):
    index = rng.integers(0, 196, 2000, dtype=np.int64)
    src = rng.standard_normal(2000).astype(np.float32)
    out = np.full(2 * 196 * 1000, np.nan, np.float32)
    (a, b) = both(variants, "scatter_741_arg", (2,), index, src, out, xnumel, 1024)
    np.testing.assert_array_equal(a[2], b[2])
    ref = out.copy().reshape(2, 196, 1000)
    j = np.arange(xnumel)
    ref[j // 1000, index[:xnumel], j % 1000] = src[:xnumel]
    np.testing.assert_array_equal(a[2].reshape(2, 196, 1000), ref)


@pytest.mark.parametrize("stride", [1, 2, 3, 16])
@pytest.mark.parametrize("n", [1, 17, 256, 1000])
@pytest.mark.parametrize("offset", [0, 1])
def test_strided_copy(variants, rng, stride, n, offset):
    src = offset_view(rng.standard_normal(n * stride + 1).astype(np.float32), offset)
    dst = offset_view(np.full(n + 1, np.nan, np.float32), offset)
    (a, b) = both(variants, "strided_copy", (tritium.cdiv(n, 128),), src, dst, n, stride, 128)
    np.testing.assert_array_equal(a[1], b[1])
    np.testing.assert_array_equal(a[1][:n], src[: n * stride : stride][:n])


@pytest.mark.parametrize("n", [1, 16, 100, 512])
@pytest.mark.parametrize("shift", [0, 1, 16, -5])
def test_gather_scatter(variants, rng, n, shift):
    idx = rng.integers(0, n, n, dtype=np.int32)
    src = rng.standard_normal(n).astype(np.float32)
    dst = np.full(n, np.nan, np.float32)
    (a, b) = both(variants, "gather_scatter", (tritium.cdiv(n, 64),), idx, src, dst, n, shift, 64)
    np.testing.assert_array_equal(a[2], b[2])
    # C remainder: the sign of the dividend.
    j = np.fmod(idx.astype(np.int64) + shift, n)
    ok = j >= 0
    expect = np.where(ok, src[np.where(ok, j, 0)], 0.0).astype(np.float32)
    np.testing.assert_array_equal(a[2][::-1], expect)


@pytest.mark.parametrize("n", [1, 16, 33, 256])
@pytest.mark.parametrize("k", [0, 1, 16, 5])
def test_masked_other(variants, rng, n, k):
    x = rng.standard_normal(max(n, 64) + 16).astype(np.float32)
    out = np.full(n, np.nan, np.float32)
    (a, b) = both(variants, "masked_other", (tritium.cdiv(n, 64),), x, out, n, k, 64)
    np.testing.assert_array_equal(a[1], b[1])
    offs = np.arange(n)
    bval = np.where(offs + k < n, x[np.minimum(offs + k, len(x) - 1)], -3.0)
    c = x[offs % 64]
    np.testing.assert_allclose(a[1], (x[:n] + bval + c).astype(np.float32), rtol=1e-6)


@pytest.mark.parametrize("block", [1, 2, 4])
def test_atomic_tile_begin(variants, block):
    y = np.zeros(20, np.int32)
    (a, b) = both(variants, "atomic_tile_begin", (20 // block,), y, block)
    expect = np.zeros(20, np.int32)
    expect[::block] = 1
    np.testing.assert_array_equal(a[0], expect)
    np.testing.assert_array_equal(b[0], expect)


HINTED = '''
import tritium
import tritium.language as tl


@tritium.jit
def lying_hint(x, out, start, BLOCK: tl.constexpr):
    offs = tl.multiple_of(start + tl.arange(0, BLOCK), 16)
    tl.store(out + tl.arange(0, BLOCK), tl.load(x + offs))
'''


def test_oracle_is_live(tmp_path):
    """The oracle runs under the whole suite: a hint that lies (the user vouches for it, the
    analysis takes it) is reported with the op, the claim and the counterexample."""
    import os
    if os.environ.get("TRITIUM_CHECK_AXIS", "0") in ("", "0"):
        pytest.skip("TRITIUM_CHECK_AXIS is off")
    path = tmp_path / "hinted.py"
    path.write_text(HINTED)
    spec = importlib.util.spec_from_file_location("hinted", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = np.arange(64, dtype=np.float32)
    out = np.zeros(16, np.float32)
    module.lying_hint[(1,)](x, out, 16, 16)  # 16 is a multiple of 16: the hint holds
    np.testing.assert_array_equal(out, x[16:32])
    with pytest.raises(tritium.InternalError, match="unsound analysis claim.*divisibility 16"):
        module.lying_hint[(1,)](x, out, 3, 16)
