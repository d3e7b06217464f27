"""`tritium aot`: the export of examples/vector_add.py for C. Without a GPU: the PTX of every
variant, a header and source that compile warning-free with gcc (C, and the header from C++
next to cuda.h when the CUDA headers are installed), run-time dispatch on the arguments
checked by a C program, a launch that fails cleanly without a GPU, and command-line errors.
The run on a GPU is tests/gpu/test_gpu_aot.py.

  TRITIUM_CLI=build/tools/tritium python3 -m pytest tests/cli/test_aot.py
"""

import os
import pathlib
import shutil
import subprocess
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
CLI = os.environ.get("TRITIUM_CLI", str(ROOT / "build" / "tools" / "tritium"))
ADD = str(ROOT / "examples" / "vector_add.py")
CUDA_INCLUDE = pathlib.Path("/usr/local/cuda/include")

SIGNATURES = [
    "*fp32, *fp32, *fp32, i64, BLOCK=1024",          # anything
    "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024",
    "*fp32, *fp32, *fp32, 1, BLOCK=1024",
    "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK=1024",
]

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc")


def aot(*args, check=True):
    result = subprocess.run([CLI, "aot", *args], capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    out = tmp_path_factory.mktemp("aot")
    args = [ADD, "--kernel", "add_kernel", "--grid", "cdiv(n_elements, BLOCK), 1, 1",
            "-o", str(out), "--name", "vadd", "--arch", "sm_90"]
    for signature in SIGNATURES:
        args += ["--signature", signature]
    result = aot(*args)
    return out, result.stdout


def test_files_are_written(exported):
    out, stdout = exported
    assert (out / "vadd.h").is_file() and (out / "vadd.c").is_file()
    for v in range(4):
        ptx = (out / f"vadd_v{v}.ptx").read_text()
        assert ".visible .entry" in ptx and ".target sm_90" in ptx
        assert f"vadd_v{v}: [" in stdout
    header = (out / "vadd.h").read_text()
    assert ("int vadd_launch(CUstream stream, unsigned long long x_ptr, unsigned long long y_ptr, "
            "unsigned long long out_ptr, int64_t n_elements);") in header
    assert "#include <cuda" not in header and "#include <cuda" not in (out / "vadd.c").read_text()


DRIVER = textwrap.dedent(r"""
    #include <stdio.h>
    #include <string.h>
    #include "vadd.h"

    static int failures = 0;
    static void expect(const char* what, unsigned long long x, unsigned long long y,
                       unsigned long long out, long long n, const char* signature) {
      int v = vadd_select(x, y, out, n);
      const char* got = v < 0 ? "none" : vadd_signature(v);
      if (strcmp(got, signature) != 0) {
        printf("FAIL %s: got [%s], expected [%s]\n", what, got, signature);
        ++failures;
      }
    }

    int main(void) {
      expect("aligned, n % 16 == 0", 4096, 8192, 12288, 1024,
             "*fp32:16, *fp32:16, *fp32:16, i32:16, BLOCK=1024");
      expect("aligned, n odd", 4096, 8192, 12288, 1001,
             "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK=1024");
      expect("one pointer misaligned", 4100, 8192, 12288, 1024,
             "*fp32, *fp32, *fp32, i64, BLOCK=1024");
      expect("n == 1", 4100, 8192, 12288, 1, "*fp32, *fp32, *fp32, 1, BLOCK=1024");
      expect("n == 1, aligned", 4096, 8192, 12288, 1,
             "*fp32:16, *fp32:16, *fp32:16, i32, BLOCK=1024");
      expect("n past int32", 4096, 8192, 12288, 1LL << 33, "*fp32, *fp32, *fp32, i64, BLOCK=1024");
      if (vadd_signature(4) != NULL || vadd_signature(-1) != NULL) { puts("FAIL bad index"); ++failures; }
      /* No GPU here: the launch must fail with a status, not crash. */
      int status = vadd_launch(NULL, 4096, 8192, 12288, 1024);
      printf("launch status %d\n", status);
      if (status == 0) { puts("FAIL launch without a GPU succeeded"); ++failures; }
      /* An empty grid launches nothing and succeeds before touching the driver. */
      if (vadd_launch(NULL, 4096, 8192, 12288, 0) != 0) { puts("FAIL empty grid"); ++failures; }
      puts(failures ? "FAILED" : "OK");
      return failures != 0;
    }
""")


def test_generated_c_compiles_and_dispatches(exported, tmp_path):
    out, _ = exported
    (tmp_path / "main.c").write_text(DRIVER)
    program = tmp_path / "main"
    flags = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-O2", f"-I{out}"]
    build = subprocess.run(["gcc", *flags, str(tmp_path / "main.c"), str(out / "vadd.c"),
                            "-o", str(program), "-ldl", "-lpthread"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    # Only libc, libdl and libpthread: no tritium, no LLVM, no libcuda link.
    needed = subprocess.run(["readelf", "-d", str(program)], capture_output=True, text=True).stdout
    assert "tritium" not in needed and "LLVM" not in needed and "libcuda" not in needed
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "OK" in run.stdout


@pytest.mark.skipif(not (CUDA_INCLUDE / "cuda.h").exists(), reason="no CUDA headers")
@pytest.mark.parametrize("compiler,suffix", [("gcc", "c"), ("g++", "cpp")])
def test_header_sits_next_to_cuda_h(exported, tmp_path, compiler, suffix):
    if shutil.which(compiler) is None:
        pytest.skip(f"no {compiler}")
    out, _ = exported
    source = tmp_path / f"both.{suffix}"
    source.write_text('#include <cuda.h>\n#include "vadd.h"\n'
                      'int call(CUstream s, CUdeviceptr x) { return vadd_launch(s, x, x, x, 16); }\n')
    result = subprocess.run([compiler, "-fsyntax-only", "-Wall", "-Wextra", "-Werror",
                             f"-I{CUDA_INCLUDE}", f"-I{out}", str(source)],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("args,message", [
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "-o", "X"], "missing --grid"),
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "--grid", "cdiv(n, BLOCK)", "-o", "X"],
     "'n' in 'cdiv(n, BLOCK)' is not a parameter"),
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "--signature",
      "*fp32, *fp32, *fp32, i32, BLOCK=512", "--grid", "4", "-o", "X"],
     "'BLOCK' must have the same constant value"),
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "--signature",
      "*fp16, *fp32, *fp32, i32, BLOCK=1024", "--grid", "4", "-o", "X"],
     "'x_ptr' has different types"),
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "--grid", "4;", "-o", "X"],
     "unexpected character ';'"),
    (["--kernel", "add_kernel", "--signature", "tensordesc<fp32[64]>, *fp32, *fp32, i32, BLOCK=1024", "--grid", "4",
      "-o", "X"], "'x_ptr' is a tensor descriptor, which tritium aot does not export yet"),
    (["--kernel", "add_kernel", "--signature", SIGNATURES[0], "--grid", "4", "-o", "X",
      "--name", "9lives"], "--name must be a C identifier"),
])
def test_command_line_errors(args, message, tmp_path):
    args = [str(tmp_path / a) if a == "X" else a for a in args]
    result = aot(ADD, *args, check=False)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr


def test_kernel_errors_point_at_the_source(tmp_path):
    result = aot(ADD, "--kernel", "add_kernel", "--signature", "*fp32, *fp32", "--grid", "1",
                 "-o", str(tmp_path), check=False)
    assert result.returncode == 1
    assert "no entry for parameter 'out_ptr'" in result.stderr
