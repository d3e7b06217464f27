#!/usr/bin/env python3
"""Self-test of run_errors.py against a stand-in CLI that prints canned diagnostics, so the
runner is known to pass good files and to fail every kind of bad outcome."""
import os
import stat
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_errors  # noqa: E402

# The stand-in CLI: prints the file's `# FAKE-STDERR:` lines to stderr (with FILE replaced
# by the path) and exits with `# FAKE-RC:` (default 1); `# FAKE-SIGNAL` kills itself.
FAKE_CLI = r'''#!/usr/bin/env python3
import os, signal, sys
path = sys.argv[2]
rc = 1
for line in open(path):
    if line.startswith("# FAKE-STDERR:"):
        sys.stderr.write(line[len("# FAKE-STDERR:"):].strip().replace("FILE", path) + "\n")
    elif line.startswith("# FAKE-RC:"):
        rc = int(line.split(":", 1)[1])
    elif line.startswith("# FAKE-SIGNAL"):
        os.kill(os.getpid(), signal.SIGSEGV)
sys.exit(rc)
'''

CASES = {
    # name: (expected to pass, file body)
    "good": (True, "# ERROR: 3:5: undefined name 'y'\n"
                   "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
    "good_with_excerpt": (True, "# ERROR: 2:1: bad\n"
                                "# FAKE-STDERR: FILE:2:1: error: very bad thing\n"
                                "# FAKE-STDERR:     x = y\n# FAKE-STDERR: ^\n"),
    "wrong_line": (False, "# ERROR: 4:5: undefined\n"
                          "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
    "wrong_col": (False, "# ERROR: 3:6: undefined\n"
                         "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
    "wrong_message": (False, "# ERROR: 3:5: shape mismatch\n"
                             "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
    "no_diagnostic": (False, "# ERROR: 3:5: undefined\n# FAKE-STDERR: something broke\n"),
    "succeeded": (False, "# ERROR: 3:5: undefined\n# FAKE-RC: 0\n"),
    "two_diagnostics": (False, "# ERROR: 3:5: undefined\n"
                               "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"
                               "# FAKE-STDERR: FILE:4:5: error: undefined name 'z'\n"),
    "internal_error": (False, "# ERROR: 3:5: undefined\n# FAKE-RC: 3\n"
                              "# FAKE-STDERR: tritium: internal compiler error in lower: oops\n"),
    "other_status": (False, "# ERROR: 3:5: undefined\n# FAKE-RC: 2\n"
                            "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
    "crash": (False, "# ERROR: 3:5: undefined\n# FAKE-SIGNAL\n"),
    "no_error_line": (False, "# FAKE-STDERR: FILE:3:5: error: undefined name 'y'\n"),
}


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        cli = os.path.join(tmp, "fake_cli")
        with open(cli, "w") as f:
            f.write(FAKE_CLI)
        os.chmod(cli, os.stat(cli).st_mode | stat.S_IEXEC)
        for name, (should_pass, body) in sorted(CASES.items()):
            path = os.path.join(tmp, name + ".py")
            with open(path, "w") as f:
                f.write(body)
            reason = run_errors.check_one(cli, path, timeout=30)
            ok = (reason is None) == should_pass
            failures += not ok
            verdict = "passes" if reason is None else "fails"
            print(f"{'PASS' if ok else 'FAIL'} {name}: the runner {verdict}"
                  + ("" if reason is None else f" ({reason.splitlines()[0]})"))
    print(f"{len(CASES) - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
