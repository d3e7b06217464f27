#!/usr/bin/env python3
"""One differential seed in full (tests/fuzz/differential.py's sides): the kernel, then for
each buffer the elements where the interpreter, tritium's GPU and Triton disagree, with their
bits, so a finding can be read on the machine that has the GPU.

  PYTHONPATH=<tritium package> python3 tests/fuzz/replay.py SEED [SEED ...] \
      [--fuzz build/tests/tritium_fuzz] [--no-triton] [--show N]

Without a GPU (or torch) only the interpreter runs and its buffers are printed."""
import argparse
import importlib.util
import os
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("seeds", type=int, nargs="+")
    parser.add_argument("--fuzz", default=os.environ.get("TRITIUM_FUZZ", "build/tests/tritium_fuzz"))
    parser.add_argument("--no-triton", action="store_true")
    parser.add_argument("--show", type=int, default=8, help="differing elements shown per buffer")
    opts = parser.parse_args()
    spec = importlib.util.spec_from_file_location("differential", HERE / "differential.py")
    d = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(d)
    d.no_fp_fusion()
    gpu = d.no_gpu_reason() is None
    import numpy as np
    import tritium
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="tritium-replay-"))
    for seed in opts.seeds:
        (_, header, source), = d.emit(os.path.abspath(opts.fuzz), seed)
        print(f"#### seed {seed}\n{d.kernel_text(header, source)}")
        args, kwargs = d.make_args(header["args"], seed)
        grid = (int(header["grid"]),)
        tsource = source.replace("import triton\nimport triton.language as tl",
                                 "import tritium as triton\nimport tritium.language as tl")
        kernel = d.load(tmp / f"r{seed}.py", f"r{seed}", tsource)
        sides = {}
        interp = d.Interpreter(tritium)
        prepared = interp.prepare(args)
        try:
            kernel[grid](*prepared, **kwargs)
        except tritium.CompilationError as error:  # a generated kernel tritium refuses
            print(f"# tritium: {str(error).strip().splitlines()[0]}")
            continue
        sides["interpreter"] = interp.buffers(args, prepared)
        if gpu:
            cuda = d.Cuda()
            prepared = cuda.prepare(args)
            kernel[grid](*prepared, **kwargs)
            cuda.synchronize()
            sides["tritium GPU"] = cuda.buffers(args, prepared)
            if not opts.no_triton and importlib.util.find_spec("triton") is not None:
                theirs = d.load(tmp / f"t{seed}.py", f"t{seed}", source)
                prepared = cuda.prepare(args)
                try:
                    theirs[grid](*prepared, **kwargs)
                    cuda.synchronize()
                    sides["Triton"] = cuda.buffers(args, prepared)
                except Exception as error:  # noqa: BLE001 (printed, the others still shown)
                    print(f"# Triton: {d.last_line(d.exception_text(error))}")
        names = list(sides)
        for i, reference in enumerate(sides["interpreter"]):
            if reference is None:
                continue
            dtype = reference[0]
            values = {name: sides[name][i][1] for name in names}
            bits = {name: v.view({1: "u1", 2: "u2", 4: "u4", 8: "u8"}[v.itemsize]) for name, v in values.items()}
            differ = np.zeros(len(reference[1]), bool)
            for name in names[1:]:
                differ |= bits[name] != bits["interpreter"]
            where = np.flatnonzero(differ)
            print(f"# argument {i} ({dtype}): {len(where)} elements differ"
                  + ("" if len(names) > 1 else f"; first {opts.show}: {values['interpreter'][:opts.show]}"))
            for j in where[:opts.show]:
                print(f"#   [{j}] " + ", ".join(f"{name} {values[name][j]!r} (0x{int(bits[name][j]):x})" for name in names))


if __name__ == "__main__":
    sys.exit(main())
