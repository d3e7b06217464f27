"""One version everywhere: tritium.__version__, `tritium --version` (the CLI of this build,
or of the installed package's console script), and CMake's project version, which is read
from python/tritium/__init__.py."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

import tritium

ROOT = pathlib.Path(__file__).resolve().parents[2]


def cli_candidates():
    found = []
    if os.environ.get("TRITIUM_CLI"):
        found.append(os.environ["TRITIUM_CLI"])
    packaged = pathlib.Path(tritium.__file__).parent / "_bin" / "tritium"
    if packaged.is_file():
        found.append(str(packaged))
    for build in sorted(ROOT.glob("build*/tools/tritium")):
        found.append(str(build))
    return found


def test_cli_and_package_agree():
    clis = cli_candidates()
    if not clis:
        pytest.skip("no tritium CLI built (build/tools/tritium) or installed")
    output = subprocess.run([clis[0], "--version"], capture_output=True, text=True,
                            timeout=60).stdout
    match = re.match(r"tritium (\S+) \(LLVM", output)
    assert match, output
    assert match.group(1) == tritium.__version__


def test_console_script_when_installed():
    script = shutil.which("tritium")
    if script is None or not (pathlib.Path(tritium.__file__).parent / "_bin").is_dir():
        pytest.skip("tritium is not pip-installed here (no console script)")
    output = subprocess.run([script, "--version"], capture_output=True, text=True,
                            timeout=60).stdout
    assert output.startswith(f"tritium {tritium.__version__} ")


def test_cmake_reads_the_package_version():
    cache = ROOT / "build" / "CMakeCache.txt"
    text = (ROOT / "CMakeLists.txt").read_text()
    assert "python/tritium/__init__.py" in text and "VERSION ${TRITIUM_VERSION_FROM_PACKAGE}" in text
    if cache.is_file():
        line = [l for l in cache.read_text().splitlines() if l.startswith("CMAKE_PROJECT_VERSION:")]
        assert line and line[0].split("=")[1] == tritium.__version__
