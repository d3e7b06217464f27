"""find_package(tritium): install a build to a temporary prefix (`cmake --install`), then
configure, build and run examples/find_package (the C++ example against tritium::tritium)
from there; also the installed CLI runs from its prefix. No GPU needed: the example runs the
vector add in the interpreter.

  TRITIUM_BUILD_DIR=build python3 -m pytest tests/cli/test_find_package.py
"""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
BUILD = pathlib.Path(os.environ.get("TRITIUM_BUILD_DIR", ROOT / "build"))


def run(*args, **kwargs):
    result = subprocess.run([str(a) for a in args], capture_output=True, text=True,
                            timeout=600, **kwargs)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="no cmake")
def test_installed_package_builds_a_consumer(tmp_path):
    prefix = tmp_path / "prefix"
    run("cmake", "--install", BUILD, "--prefix", prefix)
    assert (prefix / "include" / "tritium" / "tritium.h").is_file()
    assert (prefix / "lib" / "cmake" / "tritium" / "tritiumConfig.cmake").is_file()
    assert (prefix / "lib" / "libtritium.so").is_file()
    # Nothing of the Python package: that is the wheel's.
    assert not (prefix / "tritium").exists()

    version = run(prefix / "bin" / "tritium", "--version")
    assert version.startswith("tritium ")

    consumer = tmp_path / "consumer"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    env = {k: v for k, v in os.environ.items() if k != "CMAKE_PREFIX_PATH"}
    run("cmake", "-S", ROOT / "examples" / "find_package", "-B", consumer, *generator,
        f"-DCMAKE_PREFIX_PATH={prefix}", env=env)
    run("cmake", "--build", consumer, env=env)
    # Linked against the installed library, not the build tree's.
    needed = run("ldd", consumer / "launch_from_cpp")
    assert str(prefix / "lib" / "libtritium.so") in needed
    out = run(consumer / "launch_from_cpp", ROOT / "examples" / "vector_add.py",
              env={**env, "TRITIUM_INTERPRET": "1"})
    assert "OK" in out
