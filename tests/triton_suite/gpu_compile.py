"""The suite's GPU compile sweep (`run_triton_suite.py --gpu-compile sm_90[,sm_80]`): while the
tests run on the CPU (kernels in tritium's interpreter), every specialization a test launches
is also compiled to PTX for the named architectures and assembled by ptxas, so defects of the
GPU back end show without a GPU.

The hook is tritium.compiled._make, which the C++ launcher calls once per new specialization
(and launch options) with the compiled-kernel handle; the handles a test made are compiled
after the test finished (outside its time limit), each in a forked child process, so a crash
(segfault, abort), a hang or runaway memory in the compiler is recorded and the run goes on.
One JSON-lines record per kernel and architecture is appended to the suite's log:

    {"event": "gpu", "nodeid": ..., "kernel": NAME, "signature": SIG, "options": {...},
     "arch": "sm_90", "status": STATUS, "reason": FIRST_LINE, "compile_s": S, "ptxas_s": S,
     "rss_mb": PEAK}

STATUS is one of
    ok          tritium wrote PTX and ptxas assembled it
    user        tritium raised a located CompilationError (file:line:col; a user-facing error)
    unlocated   a CompilationError without a location
    resources   OutOfResources (or another LaunchError)
    internal    tritium's InternalError (an LLVM verifier failure is one), or another exception
    ptxas       ptxas rejected the PTX (or ran past its time limit: "ptxas timeout")
    crash       the compiling process died on a signal (reason: the signal and stderr's tail)
    timeout     the compile ran past --gpu-compile-timeout
    memory      the compile's resident memory passed --gpu-compile-mem
"""

import json
import os
import re
import signal
import subprocess
import tempfile
import time

PTXAS = os.environ.get("TRITIUM_SUITE_PTXAS", "/usr/local/cuda/bin/ptxas")

_PENDING = []


def install():
    """Wraps tritium.compiled._make so each new handle is remembered for the sweep. Must run
    before the first launch: the C++ launcher looks _make up once."""
    import tritium.compiled as compiled
    original = compiled._make

    def make(kernel, signature, options, info):
        handle = original(kernel, signature, options, info)
        _PENDING.append(handle)
        return handle

    compiled._make = make


def take_pending():
    handles = list(_PENDING)
    _PENDING.clear()
    return handles


def _classify(exc):
    import tritium.errors as errors
    text = str(exc).strip()
    first = text.splitlines()[0][:300] if text else type(exc).__name__
    if isinstance(exc, errors.CompilationError):
        return ("user" if exc.line else "unlocated"), first
    if isinstance(exc, errors.OutOfResources) or isinstance(exc, errors.LaunchError):
        return "resources", first
    if isinstance(exc, errors.InternalError):
        return "internal", first
    return "internal", f"{type(exc).__name__}: {first}"


def _rss_mb(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def _emit_ptx(handle, sm):
    o = handle._options
    return handle._kernel.emit("ptx", handle.signature, int(o.get("num_warps", 4)),
                               int(o.get("num_stages", 3)), sm,
                               num_ctas=int(o.get("num_ctas", 1)),
                               maxnreg=int(o.get("maxnreg", 0)),
                               enable_fp_fusion=int(o.get("enable_fp_fusion", -1)),
                               debug=bool(o.get("debug", False)))


def _child(handle, sm, ptx_path, result_fd, err_path):
    """In the forked child: compile, write the PTX to ptx_path and a JSON result to
    result_fd; never returns."""
    try:
        err = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(err, 2)
        os.dup2(err, 1)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        t0 = time.time()
        try:
            ptx = _emit_ptx(handle, sm)
            with open(ptx_path, "w") as f:
                f.write(ptx)
            res = {"status": "ok"}
        except BaseException as exc:  # noqa: BLE001 - every failure is a result here
            status, reason = _classify(exc)
            res = {"status": status, "reason": reason}
        res["compile_s"] = round(time.time() - t0, 3)
        os.write(result_fd, json.dumps(res).encode())
    finally:
        os._exit(0)


def _tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            lines = [l.strip() for l in f.read().splitlines() if l.strip()]
        return " | ".join(lines[-n:])[:300]
    except OSError:
        return ""


def compile_one(handle, arch, timeout, mem_mb, workdir):
    """Compiles one handle for `arch` ("sm_90") in a forked child, then runs ptxas; returns
    the record's fields."""
    sm = int(arch.replace("sm_", "").rstrip("a"))
    ptx_path = os.path.join(workdir, "k.ptx")
    err_path = os.path.join(workdir, "stderr.txt")
    for p in (ptx_path, err_path):
        if os.path.exists(p):
            os.unlink(p)
    r, w = os.pipe()
    t0 = time.time()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        _child(handle, sm, ptx_path, w, err_path)
    os.close(w)
    peak, status, killed = 0, None, None
    while True:
        done, wstatus = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        peak = max(peak, _rss_mb(pid))
        if time.time() - t0 > timeout:
            killed = "timeout"
        elif peak > mem_mb:
            killed = "memory"
        if killed:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            wstatus = None
            break
        time.sleep(0.005 if time.time() - t0 < 0.5 else 0.05)
    chunks = []
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        chunks.append(b)
    os.close(r)
    wall = round(time.time() - t0, 3)
    rec = {"arch": arch, "rss_mb": peak}
    if killed == "timeout":
        rec.update(status="timeout", reason=f"compile ran past {timeout:g} s", compile_s=wall)
        return rec
    if killed == "memory":
        rec.update(status="memory", reason=f"compile passed {mem_mb} MB resident", compile_s=wall)
        return rec
    if wstatus is not None and os.WIFSIGNALED(wstatus):
        sig = os.WTERMSIG(wstatus)
        rec.update(status="crash", reason=f"signal {signal.Signals(sig).name}: {_tail(err_path)}",
                   compile_s=wall)
        return rec
    try:
        res = json.loads(b"".join(chunks).decode() or "{}")
    except ValueError:
        res = {}
    if not res:
        rec.update(status="crash", reason=f"no result from the compiling process: {_tail(err_path)}",
                   compile_s=wall)
        return rec
    rec.update(res)
    if res["status"] != "ok":
        return rec
    with open(ptx_path) as f:
        ptx = f.read()
    m = re.search(r"^\s*\.target\s+(\w+)", ptx, re.M)
    target = m.group(1) if m else arch
    t1 = time.time()
    try:
        proc = subprocess.run([PTXAS, f"-arch={target}", "-o", os.path.join(workdir, "k.cubin"),
                               ptx_path], capture_output=True, text=True, timeout=max(timeout, 120))
        rec["ptxas_s"] = round(time.time() - t1, 3)
        if proc.returncode != 0:
            lines = [l for l in (proc.stderr + proc.stdout).splitlines() if l.strip()]
            errs = [l for l in lines if "error" in l.lower()] or lines or [f"exit {proc.returncode}"]
            rec.update(status="ptxas", reason=errs[0][:300])
    except subprocess.TimeoutExpired:
        rec.update(status="ptxas", reason="ptxas timeout", ptxas_s=round(time.time() - t1, 3))
    return rec


def sweep(config, nodeid, log):
    """Compiles the handles the test `nodeid` made, for each architecture of --gpu-compile,
    and logs one record per kernel and architecture."""
    handles = take_pending()
    if not handles:
        return
    archs = [a.strip() for a in config.getoption("--gpu-compile").split(",") if a.strip()]
    timeout = config.getoption("--gpu-compile-timeout")
    mem_mb = int(config.getoption("--gpu-compile-mem") * 1024)
    with tempfile.TemporaryDirectory(prefix="gpusweep-") as workdir:
        for handle in handles:
            for arch in archs:
                rec = {"event": "gpu", "nodeid": nodeid, "kernel": handle.name,
                       "signature": handle.signature,
                       "options": {k: v for k, v in handle._options.items()
                                   if k in ("num_warps", "num_stages", "num_ctas", "maxnreg",
                                            "enable_fp_fusion", "debug")}}
                rec.update(compile_one(handle, arch, timeout, mem_mb, workdir))
                log(rec)
