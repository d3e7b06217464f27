#!/usr/bin/env python3
"""Runs the golden tests: for each kernel file, each `# RUN:` line gives the arguments of
`tritium compile FILE ...` (for example `--kernel K --signature "..." --emit ir`); the
printed stage is checked by tritium_filecheck against the file's `# CHECK:` lines.

An IR text file (`.ir`, as in tests/golden/passes/) runs `tritium opt FILE ...` instead: its
RUN lines read `# RUN: opt --passes=a,b`. Directories are searched recursively.

A RUN line may carry `--check-prefix=P` (or `--check-prefix P`) to check against `P:` lines
instead, so one file can hold expectations for several stages or signatures.

  run_golden.py --cli build/tools/tritium --filecheck build/tests/tritium_filecheck \
      tests/golden [more files or directories]

Prints one line per RUN and a closing `N passed, N failed` line; exit status 1 if any
failed.

Every RUN line with a signature is also compiled to PTX for sm_90 (`--emit ptx --arch
sm_90`) and assembled by `ptxas -arch=sm_90` when ptxas is on the machine (`--ptxas`, else
PATH, else /usr/local/cuda/bin/ptxas), so invalid PTX fails without a GPU; without ptxas,
or in a build without the NVPTX backend, that check is skipped and the skip is printed.
"""
import argparse
import os
import shlex
import shutil
import subprocess
import tempfile
import sys


def collect(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for root, dirs, names in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d != "__pycache__")
                files += sorted(os.path.join(root, f) for f in names
                                if f.endswith((".py", ".ir")) and not f.startswith(("run_", "test_")))
        else:
            files.append(path)
    return files


def command(cli, path, args):
    """The CLI command of a RUN line: `opt` for IR text files, else `compile`."""
    if path.endswith(".ir"):
        if not args or args[0] != "opt":
            raise ValueError("a RUN line of an .ir file must start with 'opt'")
        return [cli, "opt", path] + args[1:]
    return [cli, "compile", path] + args


def run_lines(path):
    """The RUN lines of a file: lists of arguments."""
    runs = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            stripped = line.strip()
            if stripped.startswith("# RUN:"):
                try:
                    runs.append((number, shlex.split(stripped[len("# RUN:"):])))
                except ValueError as e:
                    raise SystemExit(f"{path}:{number}: bad RUN line: {e}")
    return runs


def split_prefix(args):
    """Removes --check-prefix from RUN arguments; returns (args, prefix)."""
    out, prefix, i = [], "CHECK", 0
    while i < len(args):
        a = args[i]
        if a.startswith("--check-prefix="):
            prefix = a.split("=", 1)[1]
        elif a == "--check-prefix" and i + 1 < len(args):
            prefix = args[i + 1]
            i += 1
        else:
            out.append(a)
        i += 1
    return out, prefix


def run_one(cli, filecheck, path, number, args, timeout):
    args, prefix = split_prefix(args)
    where = f"{os.path.relpath(path)}:{number}"
    try:
        cmd = command(cli, path, args)
    except ValueError as e:
        return f"{where}: {e}"
    try:
        result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"{where}: the CLI timed out after {timeout}s: {shlex.join(cmd)}"
    if result.returncode != 0 and "without the NVPTX backend" in result.stderr:
        return SKIPPED  # an --emit llvm/ptx RUN line in a build without the backend (ASan)
    if result.returncode != 0:
        return (f"{where}: the CLI exited with status {result.returncode}: {shlex.join(cmd)}\n"
                f"{result.stderr.rstrip()}")
    check = subprocess.run([filecheck, path, f"--check-prefix={prefix}"], input=result.stdout,
                           capture_output=True, text=True, timeout=timeout)
    if check.returncode != 0:
        return (f"{where}: {prefix} lines do not match ({shlex.join(cmd)})\n"
                f"{check.stderr.rstrip()}\n--- output of the CLI ---\n{result.stdout.rstrip()}")
    return None


SKIPPED = "skipped"


def find_ptxas(given):
    if given:
        return given
    found = shutil.which("ptxas")
    if found:
        return found
    default = "/usr/local/cuda/bin/ptxas"
    return default if os.path.exists(default) else None


def ptx_check(cli, ptxas, path, number, args, timeout):
    """(status, message): the RUN's kernel and signature as PTX for sm_90, assembled by
    ptxas. status is "pass", "fail" or "skip" (no signature, no NVPTX backend)."""
    args, _ = split_prefix(args)
    if "--signature" not in args or path.endswith(".ir"):
        return "skip", "no signature"
    for flag in ("--emit", "--arch"):  # PTX for sm_90, whatever the RUN printed
        if flag in args:
            i = args.index(flag)
            args = args[:i] + args[i + 2:]
    where = f"{os.path.relpath(path)}:{number}"
    cmd = [cli, "compile", path] + args + ["--emit", "ptx", "--arch", "sm_90"]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if "without the NVPTX backend" in result.stderr:
        return "skip", "built without the NVPTX backend"
    if result.returncode != 0:
        return "fail", (f"{where}: --emit ptx exited with status {result.returncode}: "
                        f"{shlex.join(cmd)}\n{result.stderr.rstrip()}")
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "kernel.ptx")
        with open(ptx, "w", encoding="utf-8") as f:
            f.write(result.stdout)
        # wgmma kernels target sm_90a, which ptxas must be told.
        arch = "sm_90a" if ".target sm_90a" in result.stdout else "sm_90"
        check = subprocess.run([ptxas, f"-arch={arch}", ptx, "-o", os.path.join(tmp, "k.cubin")],
                               capture_output=True, text=True, timeout=timeout)
    if check.returncode != 0:
        return "fail", f"{where}: ptxas -arch={arch} rejected the PTX:\n{check.stderr.rstrip()}"
    return "pass", ""


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cli", required=True)
    parser.add_argument("--filecheck", required=True)
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--ptxas", help="ptxas to assemble the PTX of each RUN with")
    parser.add_argument("paths", nargs="+")
    opts = parser.parse_args()

    ptxas = find_ptxas(opts.ptxas)
    passed = failed = ptx_skipped = backend_skipped = 0
    for path in collect(opts.paths):
        runs = run_lines(path)
        if not runs:
            print(f"FAIL {os.path.relpath(path)}: no '# RUN:' line")
            failed += 1
            continue
        for number, args in runs:
            error = run_one(opts.cli, opts.filecheck, path, number, args, opts.timeout)
            if error is SKIPPED:
                backend_skipped += 1
                print(f"SKIP {os.path.relpath(path)}:{number} (built without the NVPTX backend)")
                continue
            if error is None:
                passed += 1
                print(f"PASS {os.path.relpath(path)}:{number}")
            else:
                failed += 1
                print(f"FAIL {error}")
            if ptxas is None:
                ptx_skipped += 1
                continue
            status, message = ptx_check(opts.cli, ptxas, path, number, args, opts.timeout)
            if status == "pass":
                passed += 1
                print(f"PASS ptxas {os.path.relpath(path)}:{number}")
            elif status == "fail":
                failed += 1
                print(f"FAIL {message}")
            elif message != "no signature":
                ptx_skipped += 1
    if ptx_skipped:
        why = "no ptxas on this machine" if ptxas is None else "no NVPTX backend in this build"
        print(f"ptxas check SKIPPED for {ptx_skipped} RUN lines ({why})")
    if backend_skipped:
        print(f"{backend_skipped} RUN lines SKIPPED: they emit LLVM IR or PTX, and this build has no "
              f"NVPTX backend")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    sys.exit(main())
