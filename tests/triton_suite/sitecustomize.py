"""Python processes that Triton's tests start themselves (test_subprocess.py runs
print_helper.py with sys.executable) import `triton` too: when the suite runner asked for
it (TRITIUM_SUITE_ALIAS=1, set by run_triton_suite.py, whose folder is on their
PYTHONPATH), they get tritium's alias as the test process does. Not used otherwise."""

import os

if os.environ.get("TRITIUM_SUITE_ALIAS") == "1":
    try:
        import tritium
        tritium.use_as_triton(quiet=True)
    except Exception as e:  # the child then fails on `import triton`, naming why here
        import sys
        print(f"tritium suite alias: {e}", file=sys.stderr)
