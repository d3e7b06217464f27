# An unmodified Triton program (Triton's vector-add tutorial, numpy instead of torch so it
# runs without a GPU): tests/python/test_triton_alias.py runs it with `python -m tritium`.
import sys

import numpy as np
import triton
import triton.language as tl
from triton.language.extra import libdevice  # noqa: F401  (resolves, as in real programs)
from triton.runtime.jit import TensorWrapper, reinterpret  # noqa: F401


@triton.jit
def add_kernel(x_ptr, y_ptr, output_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(axis=0)
    block_start = pid * BLOCK_SIZE
    offsets = block_start + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets, mask=mask)
    y = tl.load(y_ptr + offsets, mask=mask)
    output = x + y
    tl.store(output_ptr + offsets, output, mask=mask)


def add(x, y):
    output = np.empty_like(x)
    n_elements = output.size
    grid = lambda meta: (triton.cdiv(n_elements, meta['BLOCK_SIZE']), )
    add_kernel[grid](x, y, output, n_elements, BLOCK_SIZE=1024)
    return output


if __name__ == "__main__":
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 98432
    rng = np.random.default_rng(0)
    x = rng.random(size, dtype=np.float32)
    y = rng.random(size, dtype=np.float32)
    out = add(x, y)
    triton.testing.assert_close(out, x + y, atol=0, rtol=0)
    try:
        @triton.jit
        def broken(x_ptr):
            tl.store(x_ptr, undefined_name)  # noqa: F821
        broken[(1,)](x)
    except triton.TritonError as e:
        print("TritonError caught:", type(e).__name__)
    print("triton.jit is", triton.jit.__module__, "max difference", float(np.max(np.abs(out - (x + y)))))
