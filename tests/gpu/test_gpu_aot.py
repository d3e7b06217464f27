"""`tritium aot` on the GPU: examples/aot/run.sh exports the vector add, builds the C example
against the generated code and runs it (three variants chosen at run time, results checked,
launch time against raw cuLaunchKernel printed)."""

import os
import pathlib
import shutil
import subprocess

import pytest

pytest.importorskip("torch")  # conftest skips every GPU test without torch and a GPU

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_aot_example_builds_and_runs(tmp_path):
    cli = os.environ.get("TRITIUM_CLI", str(ROOT / "build" / "tools" / "tritium"))
    if not pathlib.Path(cli).exists() or shutil.which("cc") is None:
        pytest.skip(f"no tritium CLI at {cli} (set TRITIUM_CLI) or no C compiler")
    result = subprocess.run(["bash", str(ROOT / "examples" / "aot" / "run.sh"), str(tmp_path)],
                            env={**os.environ, "TRITIUM_CLI": cli}, capture_output=True,
                            text=True, timeout=300)
    print(result.stdout)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.count(": ok") == 3 and "OK" in result.stdout
    assert "aot_launch_us" in result.stdout
    # The program needs libcuda only (no tritium, no LLVM).
    needed = subprocess.run(["readelf", "-d", str(tmp_path / "main")], capture_output=True,
                            text=True).stdout
    assert "tritium" not in needed and "LLVM" not in needed
