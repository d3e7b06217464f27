"""Narrow stores of a float's low bits, without a GPU: the interpreter keeps the low bits
(numpy's view, truncated), and the PTX for sm_90 hands every st.b8/st.b16 a 16-bit register
(integer low bits), never a 32-bit register a float instruction defined, which ptxas would
convert with saturation. The GPU check is tests/gpu/test_gpu_bitcast.py."""

import re

import numpy as np
import pytest

import tritium
import narrow_store_kernels as K

# st.global.b8 [addr], %r12  -- a 32-bit register as the source of a narrow store
WIDE_SOURCE = re.compile(r"\bst\.[a-z0-9_.:]*\.b(8|16)\s+\[[^\]]*\],\s*%r\d")

CASES = [(np.int8, True, True), (np.uint8, False, True), (np.int16, True, False),
         (np.uint16, False, False), (np.bool_, True, True), (np.int8, False, False)]


def low_bits(y, dtype, narrow):
    bits = y.view(np.uint32)
    if dtype == np.bool_:
        # .to(tl.int1) compares with 0; a store through an i1 pointer keeps the low byte, as
        # Triton's store does (it stores i1 as i8).
        return (bits != 0).astype(np.uint8) if narrow else (bits & 0xFF).astype(np.uint8)
    return bits.astype(dtype)


@pytest.mark.parametrize("dtype, narrow, masked", CASES)
def test_interpreter_stores_the_low_bits(dtype, narrow, masked):
    n = 100 if masked else 128
    x = np.linspace(-300, 300, 128).astype(np.float32)
    out = np.zeros(128, dtype)
    K.float_bits_to_narrow[(1,)](x, out, n, np.float32(1.7), NARROW=narrow, MASKED=masked, BLOCK=128)
    want = low_bits(x[:n] + np.float32(1.7), dtype, narrow)
    got = out[:n].view(np.uint8) if dtype == np.bool_ else out[:n]
    assert np.array_equal(got, want)


def ptx_of(kernel, *args, **kwargs):
    try:
        return kernel.emit("ptx", *args, arch=90, **kwargs)
    except tritium.CompilationError as e:
        if "without the NVPTX backend" in str(e):
            pytest.skip("built without the NVPTX backend")
        raise


@pytest.mark.parametrize("dtype, narrow, masked", CASES)
def test_ptx_narrow_store_sources_are_16_bit(dtype, narrow, masked):
    x = np.zeros(128, np.float32)
    out = np.zeros(128, dtype)
    ptx = ptx_of(K.float_bits_to_narrow, x, out, 128, 1.5, NARROW=narrow, MASKED=masked, BLOCK=128)
    assert re.search(r"\bst\.global[a-z0-9_.:]*\.b(8|16)\b", ptx), ptx
    assert not WIDE_SOURCE.search(ptx), WIDE_SOURCE.search(ptx).group(0)


def test_ptx_scalar_narrow_store_source_is_16_bit():
    ptx = ptx_of(K.scalar_float_bits_to_narrow, np.zeros(1, np.float32), np.zeros(1, np.int8), 2.0)
    assert re.search(r"\bst\.global[a-z0-9_.:]*\.b8\b", ptx), ptx
    assert not WIDE_SOURCE.search(ptx), WIDE_SOURCE.search(ptx).group(0)
