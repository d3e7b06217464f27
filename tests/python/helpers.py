"""Shared helpers of the Python API tests (conftest.py makes `tritium` importable)."""

import os
import pathlib
import shutil


def marked_line(path, marker):
    """(number, text) of the line of `path` that ends with the comment `# LINE: <marker>`."""
    for number, text in enumerate(pathlib.Path(path).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# LINE: {marker}"):
            return number, text
    raise AssertionError(f"no line marked {marker!r} in {path}")


def ptxas():
    """NVIDIA's ptxas on PATH, else CUDA's default place, else None (PTX is then only emitted)."""
    found = shutil.which("ptxas")
    if found:
        return found
    default = "/usr/local/cuda/bin/ptxas"
    return default if os.path.exists(default) else None
