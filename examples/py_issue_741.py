# Triton issue 741, run from Python: a kernel argument reassigned to a constant inside the
# kernel (`xnumel = 2000`). In Triton 1.x the argument's specialization facts leaked onto
# the constant and the scatter came out wrong; in tritium facts stay on the entry argument.
#
#   PYTHONPATH=python python3 examples/py_issue_741.py       (after a CMake build)
#   python3 examples/py_issue_741.py                         (after `pip install .`)
#
# It runs both kernels of the issue on its inputs (through the interpreter when there is
# no GPU), checks them against numpy's scatter, and prints the IR after specialization:
# the facts (`:16`) sit on the entry argument `xnumel`, none on the constant 2000.
import numpy as np

import tritium
import tritium.language as tl


@tritium.jit
def scatter(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x0 = xindex % 1000
    x1 = xindex // 1000
    tmp0 = tl.load(in_ptr0 + xindex, xmask)
    tmp1 = tl.load(in_ptr1 + xindex, xmask)
    tl.store(out_ptr0 + x0 + 1000 * tmp0 + 196000 * x1, tmp1, xmask)


@tritium.jit
def scatter_with_constant(in_ptr0, in_ptr1, out_ptr0, xnumel, XBLOCK: tl.constexpr):
    xnumel = 2000  # shadows the argument: a new value, with no facts from the argument
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.reshape(tl.arange(0, XBLOCK), [XBLOCK])
    xmask = xindex < xnumel
    x0 = xindex % 1000
    x1 = xindex // 1000
    tmp0 = tl.load(in_ptr0 + xindex, xmask)
    tmp1 = tl.load(in_ptr1 + xindex, xmask)
    tl.store(out_ptr0 + x0 + 1000 * tmp0 + 196000 * x1, tmp1, xmask)


def main():
    index = (np.arange(2000, dtype=np.int64) % 196).reshape(2, 1, 1000)
    src = np.arange(1, 2001, dtype=np.float32).reshape(2, 1000)

    # numpy's torch.scatter_(1, index, src): out[b, index[b, 0, j], j] = src[b, j]
    expected = np.zeros((2, 196, 1000), np.float32)
    b, j = np.meshgrid(np.arange(2), np.arange(1000), indexing="ij")
    expected[b, index[:, 0, :], j] = src

    grid = lambda meta: (tritium.cdiv(2000, meta["XBLOCK"]),)  # noqa: E731
    for kernel, xnumel in ((scatter, 2000), (scatter_with_constant, 2000),
                           (scatter_with_constant, 2048)):
        out = np.zeros((2, 196, 1000), np.float32)
        kernel[grid](index, src, out, xnumel, XBLOCK=1024)
        status = "OK" if np.array_equal(out, expected) else "WRONG"
        print(f"{kernel.__name__:22} xnumel={xnumel}: {out[0].max(-1)[:5]} "
              f"sum={out.sum(dtype=np.float64):.0f} {status}")
        assert status == "OK"

    signature = scatter_with_constant.signature(index, src, expected, 2048, XBLOCK=1024)
    print(f"\nsignature: {signature}\n")
    print(scatter_with_constant.emit("ir", signature=signature))


if __name__ == "__main__":
    main()
