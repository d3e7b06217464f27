"""tests/gpu/run_on_device.sh cannot run here (it builds against a GPU machine's toolchain and
runs there), but it must stay well-formed: bash parses it, and each of its sections (the
`echo "== ..."` headers) appears once — an edit that pasted a copy of the build and the GPU
tests into it (session 10) passed every other test."""

import collections
import pathlib
import re
import shutil
import subprocess

import pytest

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "tests" / "gpu" / "run_on_device.sh"


@pytest.mark.skipif(shutil.which("bash") is None, reason="no bash")
def test_bash_parses_it():
    result = subprocess.run(["bash", "-n", str(SCRIPT)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_each_section_once():
    headers = re.findall(r'^\s*echo "(== [^"$]*)', SCRIPT.read_text(), re.MULTILINE)
    assert len(headers) >= 5, headers
    twice = [h for h, n in collections.Counter(headers).items() if n > 1]
    assert twice == []
