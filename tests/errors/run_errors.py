#!/usr/bin/env python3
"""Runs the error tests: each kernel file holds one `# ERROR: LINE:COL: MESSAGE` line and a
`# RUN:` line with the arguments of `tritium compile FILE ...` (default
`--kernel kernel --emit ir`). The test passes when the CLI exits with status 1 and its
stderr holds exactly one diagnostic, `FILE:LINE:COL: error: ...` containing MESSAGE. It
fails on success, on a missing or different diagnostic, on a second diagnostic, and on an
internal error or a crash (any other exit status).

An IR text file (`.ir`) runs `tritium opt FILE` plus its RUN line's arguments (default none):
the parser and the verifier of IR text report located errors the same way.

  run_errors.py --cli build/tools/tritium tests/errors [more files or directories]

Prints one line per file and a closing `N passed, N failed` line.
"""
import argparse
import os
import re
import shlex
import subprocess
import sys

ERROR_LINE = re.compile(r"^#\s*ERROR:\s*(\d+):(\d+):\s*(.*?)\s*$")
DIAGNOSTIC = re.compile(r"^(?P<file>.*?):(?P<line>\d+):(?P<col>\d+): error: (?P<msg>.*)$")


def collect(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            files += sorted(os.path.join(path, f) for f in os.listdir(path)
                            if f.endswith((".py", ".ir")) and not f.startswith(("run_", "test_")))
        else:
            files.append(path)
    return files


def read_spec(path):
    """(run args, (line, col, message)) of an error test file."""
    run, expected = None, None
    with open(path, encoding="utf-8") as f:
        for text in f:
            stripped = text.strip()
            if stripped.startswith("# RUN:"):
                run = shlex.split(stripped[len("# RUN:"):])
            m = ERROR_LINE.match(stripped)
            if m:
                if expected is not None:
                    raise ValueError("more than one '# ERROR:' line")
                expected = (int(m.group(1)), int(m.group(2)), m.group(3))
    if expected is None:
        raise ValueError("no '# ERROR: LINE:COL: MESSAGE' line")
    if run is None:
        run = [] if path.endswith(".ir") else ["--kernel", "kernel", "--emit", "ir"]
    return run, expected


def check_one(cli, path, timeout):
    """None when the file passes, else the reason it fails."""
    try:
        args, (line, col, message) = read_spec(path)
    except ValueError as e:
        return str(e)
    cmd = [cli, "opt" if path.endswith(".ir") else "compile", path] + args
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"the CLI hung (no answer in {timeout}s): {shlex.join(cmd)}"
    stderr = result.stderr
    if result.returncode == 0:
        return f"expected an error at {line}:{col}, but compilation succeeded"
    if result.returncode < 0:
        return f"the CLI crashed (signal {-result.returncode}):\n{stderr.rstrip()}"
    if "internal compiler error" in stderr or "internal error" in stderr:
        return f"an internal error instead of a diagnostic:\n{stderr.rstrip()}"
    if result.returncode != 1:
        return f"the CLI exited with status {result.returncode} (expected 1):\n{stderr.rstrip()}"
    diagnostics = [m for m in map(DIAGNOSTIC.match, stderr.splitlines()) if m]
    if not diagnostics:
        return f"no located diagnostic (FILE:LINE:COL: error: ...) in:\n{stderr.rstrip()}"
    if len(diagnostics) > 1:
        return f"{len(diagnostics)} diagnostics, expected exactly one:\n{stderr.rstrip()}"
    d = diagnostics[0]
    got = (int(d.group("line")), int(d.group("col")))
    if os.path.basename(d.group("file")) != os.path.basename(path):
        return f"the diagnostic names file {d.group('file')!r}, not this file:\n{stderr.rstrip()}"
    if got != (line, col):
        return (f"the diagnostic is at {got[0]}:{got[1]}, expected {line}:{col}:\n"
                f"{stderr.rstrip()}")
    if message not in d.group("msg"):
        return f"the message does not contain {message!r}:\n{stderr.rstrip()}"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True, help="the tritium CLI (or a stand-in)")
    parser.add_argument("--timeout", type=int, default=60)
    parser.add_argument("paths", nargs="+")
    opts = parser.parse_args()

    passed = failed = 0
    for path in collect(opts.paths):
        reason = check_one(opts.cli, path, opts.timeout)
        name = os.path.relpath(path)
        if reason is None:
            passed += 1
            print(f"PASS {name}")
        else:
            failed += 1
            print(f"FAIL {name}: {reason}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
