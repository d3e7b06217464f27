"""A kernel that never ends in the interpreter (issue 11): Ctrl-C stops it with
KeyboardInterrupt, and TRITIUM_INTERPRET_MAX_STEPS stops it with a LaunchError that names
the kernel, the loop's line and the knob."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import tritium
import tritium.language as tl
from helpers import marked_line


@tritium.jit
def spin(x_ptr, n):
    step = tl.load(x_ptr)  # 0: the loop never advances
    i = 0
    while i < n:  # LINE: spin loop
        i = i + step
    tl.store(x_ptr + 1, i)


def test_max_steps_stops_a_kernel_that_never_ends(monkeypatch):
    line, _ = marked_line(__file__, "spin loop")
    monkeypatch.setenv("TRITIUM_INTERPRET_MAX_STEPS", "100000")
    x = np.zeros(2, np.int32)
    start = time.monotonic()
    with pytest.raises(tritium.LaunchError) as info:
        spin[(1,)](x, 10)
    assert time.monotonic() - start < 30
    message = str(info.value)
    assert "spin" in message and "100000" in message and "TRITIUM_INTERPRET_MAX_STEPS" in message
    assert f"{os.path.basename(__file__)}:{line}" in message
    # A kernel within the limit runs as usual (programs count as steps too).
    x = np.array([1, 0], np.int32)
    spin[(4,)](x, 1000)
    assert x[1] == 1000


def test_ctrl_c_interrupts_an_interpreted_kernel(tmp_path):
    script = tmp_path / "spin.py"
    script.write_text(textwrap.dedent(f"""
        import sys
        sys.path[:0] = {sys.path!r}
        import numpy as np
        import tritium
        import tritium.language as tl

        @tritium.jit
        def spin(x_ptr, n):
            step = tl.load(x_ptr)
            i = 0
            while i < n:
                i = i + step
            tl.store(x_ptr + 1, i)

        print("running", flush=True)
        try:
            spin[(1,)](np.zeros(2, np.int32), 10)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(3)
        print("finished", flush=True)
    """))
    env = dict(os.environ, TRITIUM_INTERPRET="1")
    env.pop("TRITIUM_INTERPRET_MAX_STEPS", None)
    child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert child.stdout.readline().strip() == "running"
        time.sleep(1.0)  # well inside the kernel by now
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 3, (out, err)
    assert "interrupted" in out
