"""Shared helpers of the Python API tests (conftest.py makes `tritium` importable)."""

import pathlib


def marked_line(path, marker):
    """(number, text) of the line of `path` that ends with the comment `# LINE: <marker>`."""
    for number, text in enumerate(pathlib.Path(path).read_text().splitlines(), start=1):
        if text.rstrip().endswith(f"# LINE: {marker}"):
            return number, text
    raise AssertionError(f"no line marked {marker!r} in {path}")
