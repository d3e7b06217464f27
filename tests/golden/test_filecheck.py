#!/usr/bin/env python3
"""Self-test of tritium_filecheck: each case is (input, check lines, should pass, text the
failure message must contain)."""
import argparse
import os
import subprocess
import sys
import tempfile

INPUT = """\
func @add_kernel(%x_ptr: ptr<fp32> {divisibility = 16}, %n: i32) {
  %0 = program_id {axis = 0} : i32
  %1 = make_range {end = 128, start = 0} : block<128xi32>
  %2 = splat %0 : block<128xi32>

  %3 = add %2, %1 : block<128xi32>
  store %x_ptr, %3
}
"""

CASES = [
    ("plain", "# CHECK: program_id\n# CHECK: store", True, ""),
    ("order matters", "# CHECK: store\n# CHECK: program_id", False, "expected string not found"),
    ("next", "# CHECK: program_id\n# CHECK-NEXT: make_range", True, ""),
    ("next fails", "# CHECK: program_id\n# CHECK-NEXT: splat", False, "on the line after"),
    ("same", "# CHECK: func @add_kernel\n# CHECK-SAME: divisibility = 16", True, ""),
    ("same fails", "# CHECK: %0 = program_id\n# CHECK-SAME: make_range", False, "same line"),
    ("not", "# CHECK: program_id\n# CHECK-NOT: load\n# CHECK: store", True, ""),
    ("not fails", "# CHECK: program_id\n# CHECK-NOT: splat\n# CHECK: store", False,
     "excluded string found"),
    ("not at the end", "# CHECK: store\n# CHECK-NOT: program_id", True, ""),
    ("label", "# CHECK-LABEL: func @add_kernel\n# CHECK: store", True, ""),
    ("regex", "# CHECK: make_range {end = {{[0-9]+}}, start = 0}", True, ""),
    ("capture and use", "# CHECK: [[PID:%[0-9]+]] = program_id\n# CHECK: splat [[PID]]", True, ""),
    ("capture mismatch", "# CHECK: [[R:%[0-9]+]] = make_range\n# CHECK: splat [[R]]", False,
     "expected string not found"),
    ("undefined variable", "# CHECK: splat [[NOPE]]", False, "undefined variable"),
    ("blank runs", "# CHECK: %3   =  add", True, ""),
    ("empty", "# CHECK: splat\n# CHECK-EMPTY:\n# CHECK-NEXT: add", True, ""),
    ("literal brackets", "# CHECK: block<128xi32>", True, ""),
    ("other prefix ignored", "# CHECK: store\n# OPT: nothing like this", True, ""),
    ("failure names the check line", "# CHECK: program_id\n\n# CHECK: nothing", False, ":3:"),
]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--filecheck", required=True)
    opts = parser.parse_args()
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, checks, should_pass, message) in enumerate(CASES):
            path = os.path.join(tmp, f"case{i}.py")
            with open(path, "w") as f:
                f.write(checks + "\n")
            r = subprocess.run([opts.filecheck, path], input=INPUT, capture_output=True, text=True)
            ok = (r.returncode == 0) == should_pass and (should_pass or message in r.stderr)
            if should_pass is False and r.returncode not in (1,):
                ok = False
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {name}" +
                  ("" if ok else f" (status {r.returncode}): {r.stderr.strip()}"))
        # A different prefix.
        path = os.path.join(tmp, "prefix.py")
        with open(path, "w") as f:
            f.write("# CHECK: nothing like this\n# OPT: program_id\n# OPT-NEXT: make_range\n")
        r = subprocess.run([opts.filecheck, path, "--check-prefix=OPT"], input=INPUT,
                           capture_output=True, text=True)
        ok = r.returncode == 0
        failures += not ok
        print(f"{'PASS' if ok else 'FAIL'} --check-prefix" + ("" if ok else f": {r.stderr}"))
    print(f"{len(CASES) + 1 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
