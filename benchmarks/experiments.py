"""A/B timing of code-generation settings for the benchmarks that compare tritium with Triton
(bench_reduce.py, bench_attention.py): each setting runs the benchmark script in a child
process of its own (the knobs are read when a kernel compiles and are part of the cache
key; each child gets an empty cache folder), the settings interleaved over the rounds, then
one table of tritium / Triton per row and setting: the best round, and the spread.

A setting is `default` (the knob unset), NAME=value[+NAME=value...] (those environment
variables), or anything else: the value of the script's own knob (TRITIUM_REDUCE_EXPERIMENT).
The value `@triton-ptxas` is the ptxas Triton compiles with (TRITIUM_PTXAS=@triton-ptxas:
tritium's PTX through Triton's ptxas instead of the driver's compiler).
"""

import json
import os
import pathlib
import subprocess
import sys
import tempfile

DEFAULT_KNOB = "TRITIUM_REDUCE_EXPERIMENT"


def setting_environment(setting, knob=DEFAULT_KNOB):
    """The child's environment for one setting."""
    env = dict(os.environ)
    env.pop(knob, None)
    if "=" in setting:
        for assignment in setting.split("+"):
            name, _, value = assignment.partition("=")
            value = value.strip()
            env[name.strip()] = triton_ptxas() if value == "@triton-ptxas" else value
    elif setting != "default":
        env[knob] = setting
    return env


def triton_ptxas():
    """The path of the ptxas Triton 3.6 compiles with (its knobs.nvidia.ptxas)."""
    from triton import knobs
    return knobs.nvidia.ptxas.path


def compare(script, child_args, settings_text, rounds, ratios_of, json_out=None):
    """Runs `script --json FILE child_args` once per setting and round; `ratios_of(result)`
    yields (row label, tritium / Triton) from a child's JSON. Prints the table; writes the
    ratios to `json_out` when given."""
    settings = [s.strip() for s in settings_text.split(";") if s.strip()]
    ratios = {}  # (label, setting) -> [tritium / Triton per round]
    order = []
    for rnd in range(rounds):
        for setting in settings:
            with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
                out = pathlib.Path(tmp) / "r.json"
                env = setting_environment(setting)
                env["TRITIUM_CACHE_DIR"] = str(pathlib.Path(tmp) / "cache")
                print(f"round {rnd + 1}, {setting}:", flush=True)
                proc = subprocess.run([sys.executable, str(script), "--json", str(out)] + list(child_args),
                                      env=env, text=True)
                if proc.returncode != 0 or not out.exists():
                    print(f"  {setting} failed (exit {proc.returncode})", flush=True)
                    continue
                for label, ratio in ratios_of(json.loads(out.read_text())):
                    if label not in order:
                        order.append(label)
                    ratios.setdefault((label, setting), []).append(ratio)
    print("\n| row | " + " | ".join(f"{s} (tritium/Triton)" for s in settings) + " |")
    print("|---|" + "---|" * len(settings))
    for label in order:
        cells = []
        for setting in settings:
            v = ratios.get((label, setting))
            cells.append("-" if not v else f"{max(v):.3f}" + (f" ({min(v):.3f}-{max(v):.3f})" if len(v) > 1 else ""))
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
    if json_out:
        pathlib.Path(json_out).write_text(json.dumps(
            {"experiments": settings, "ratios": [{"label": label, "setting": setting, "ratios": v}
                                                 for (label, setting), v in ratios.items()]}, indent=2))
