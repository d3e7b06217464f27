"""`return` in @jit functions, pinned to Triton 3.6's rules.

Triton lowers a return as a jump: it goes on compiling the statements after the `if` that
holds it (after a compile-time `if` too, into a dead block), merges that `if`'s branches
as any other's (a name set in one branch only is not defined after it; a name set in both
keeps one type), and every return, reachable or not, must give the type of the first. A
return inside a runtime `for`/`while` is refused. tritium lowers returns differently (the
rest of the function moves into the branches that do not return) but first checks such a
body the way Triton visits it, so it refuses what Triton refuses, with a located error.

Each case is one small program. REJECTED: tritium raises a CompilationError located at the
line marked `#!` (at the marked name, or where the statement starts), with Triton's meaning.
ACCEPTED: tritium runs it in the interpreter and the stored values are checked. When Triton
3.6 is installed (TRITIUM_TRITON_PYTHON, default /tmp/tvenv/bin/python), every case is also
compiled by Triton for sm_90 in a subprocess, which must reject the REJECTED ones and accept
the ACCEPTED ones; without it those tests skip and say so.

STRICTER lists programs Triton accepts and tritium refuses, each with the reason.
Elsewhere, by design: tritium returns a compile-time value from a helper as one (Triton's
rule since 3.7, tests/python/test_newer_language.py), where 3.6 makes it a tensor.
"""

import importlib.util
import json
import os
import re
import subprocess
import tempfile
import textwrap

import numpy as np
import pytest

import tritium

TRITON_PYTHON = os.environ.get("TRITIUM_TRITON_PYTHON", "/tmp/tvenv/bin/python")
PREFIX_TRITIUM = "import tritium as triton\nimport tritium.language as tl\n"
PREFIX_TRITON = "import triton\nimport triton.language as tl\n"  # as many lines


class Case:
    def __init__(self, name, src, consts=None, message=None, triton=None, runs=None, reason=None):
        self.name = name
        self.triton = triton    # REJECTED: what Triton 3.6's error says (a regex)
        self.src = textwrap.dedent(src).lstrip("\n")
        self.consts = consts or {}
        self.message = message  # REJECTED: what tritium's error says (a regex)
        self.runs = runs or []  # ACCEPTED: (n, constexprs, expected first values of x)
        self.reason = reason    # STRICTER: why tritium refuses it

    def location(self):
        """(line, column) of the `#!` mark: the marked name's column, else the statement's."""
        lines = (PREFIX_TRITIUM + self.src).splitlines()
        for number, line in enumerate(lines, 1):
            if "#!" in line:
                code, mark = line.split("#!", 1)
                mark = mark.strip()
                column = code.index(mark) + 1 if mark else len(code) - len(code.lstrip()) + 1
                return number, column
        raise AssertionError(f"{self.name}: no #! mark")

    def __repr__(self):
        return self.name


# Triton's two words for a return in a runtime loop: the checker's, and the assertion when
# the return is met directly in the loop body (under no runtime `if`).
LOOP = r"Cannot have `return` statements inside `while` or `for` statements|loop body should only have one block"

REJECTED = [
    Case("return_types_differ_after_a_runtime_if", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v * 2
            return v.to(tl.float32)  #!

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, message=r"inconsistent return types: i32 and fp32",
         triton=r"Inconsistent return types: int32 and fp32"),
    Case("return_types_differ_between_if_and_else", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v * 2
            else:
                return v.to(tl.float32)  #!

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, message=r"inconsistent return types: i32 and fp32",
         triton=r"Inconsistent return types: int32 and fp32"),
    Case("unreachable_return_after_a_compile_time_if_has_another_type", """
        @triton.jit
        def helper(v, DOUBLE: tl.constexpr):
            if DOUBLE:
                return v * 2
            return v.to(tl.float32)  #!

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n, True).to(tl.float32))
        """, message=r"inconsistent return types: i32 and fp32",
         triton=r"Inconsistent return types: int32 and fp32"),
    Case("code_after_a_compile_time_if_that_returns_is_compiled", """
        @triton.jit
        def helper(v, DOUBLE: tl.constexpr):
            if DOUBLE:
                return v * 2
            return v + undefined_thing  #! undefined_thing

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n, True).to(tl.float32))
        """, message=r"undefined name 'undefined_thing'",
         triton=r"undefined_thing is not defined"),
    Case("kernel_code_after_a_compile_time_return_is_compiled", """
        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            if C:
                return
            tl.store(x_ptr, undefined_value)  #! undefined_value
        """, consts={"C": True}, message=r"undefined name 'undefined_value'",
         triton=r"undefined_value is not defined"),
    # The fused-attention program's helper before it had an `else`: the fall-through
    # makes a descriptor of a descriptor, compiled although the `if` always returns.
    Case("descriptor_helper_falling_through", """
        @triton.jit
        def as_descriptor(desc_or_ptr, n):
            if isinstance(desc_or_ptr, tl.tensor_descriptor):
                return desc_or_ptr
            return tl.make_tensor_descriptor(desc_or_ptr, [n], [1], [8])  #! tl

        @triton.jit
        def kernel(x_ptr, n):
            desc = as_descriptor(tl.make_tensor_descriptor(x_ptr, [n], [1], [8]), n)
            desc.store([0], tl.full([8], 1.0, tl.float32))
        """, message=r"the base of tl.make_tensor_descriptor must be a scalar pointer, got a tensor descriptor",
         triton=r"AssertionError"),  # semantic.py asserts that the base is a pointer
    Case("bare_return_and_a_value", """
        @triton.jit
        def helper(v):
            if v > 3:
                return
            return v  #!

        @triton.jit
        def kernel(x_ptr, n):
            helper(n)
        """, message=r"inconsistent return types: None and i32",
         triton=r"Inconsistent return types: void and int32"),
    Case("tuple_and_single_value_returns", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v, v
            return v  #!

        @triton.jit
        def kernel(x_ptr, n):
            a = helper(n)
        """, message=r"inconsistent return types: \(i32, i32\) and i32",
         triton=r"Inconsistent return types: \[:int32,:int32\] and int32"),
    Case("scalar_and_block_returns", """
        @triton.jit
        def helper(v):
            if v > 2:
                return v
            return tl.zeros([4], tl.int32)  #!

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, message=r"inconsistent return types: i32 and block<4xi32>",
         triton=r"Inconsistent return types: int32 and <\['4'\], int32>"),
    Case("name_set_only_in_the_branch_that_goes_on", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:
                return
            else:
                y = 2.0
            tl.store(x_ptr, y)  #! y
        """, message=r"undefined name 'y'", triton=r"y is not defined"),
    Case("name_set_after_the_return_of_its_branch", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:
                return
                y = 1.0
            else:
                y = 2.0
            tl.store(x_ptr, y)  #! y
        """, message=r"undefined name 'y'", triton=r"y is not defined"),
    Case("name_set_only_in_the_returning_branch", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:
                y = 1.0
                return
            tl.store(x_ptr, y)  #! y
        """, message=r"undefined name 'y'", triton=r"y is not defined"),
    Case("name_set_in_both_branches_with_two_types", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:  #!
                y = 1
                return
            else:
                y = 2.0
            tl.store(x_ptr, y)
        """, message=r"mismatched type for 'y' between the then block \(i32\) and the else block \(fp32\)",
         triton=r"Mismatched type for y between then block \(int32\) and else block \(fp32\)"),
    Case("name_changes_type_in_the_returning_branch", """
        @triton.jit
        def kernel(x_ptr, n):
            y = 1.0
            if n > 1:  #!
                y = 3
                return
            tl.store(x_ptr, y)
        """, message=r"initial value for 'y' is of type fp32, but the then block redefines it as i32",
         triton=r"initial value for `y` is of type fp32\[\], but the then block redefines it as int32\[\]"),
    Case("return_in_an_if_in_a_for", """
        @triton.jit
        def kernel(x_ptr, n):
            for i in range(n):
                if i > 2:
                    return  #!
                tl.store(x_ptr + i, 1.0)
        """, message=r"cannot have return statements inside while or for loops",
         triton=LOOP),
    Case("return_directly_in_a_for", """
        @triton.jit
        def kernel(x_ptr, n):
            for i in range(n):
                tl.store(x_ptr + i, 1.0)
                return  #!
        """, message=r"cannot have return statements inside while or for loops",
         triton=LOOP),
    Case("return_in_a_while", """
        @triton.jit
        def kernel(x_ptr, n):
            i = 0
            while i < n:
                if i > 2:
                    return  #!
                i += 1
        """, message=r"cannot have return statements inside while or for loops",
         triton=LOOP),
    Case("compile_time_return_taken_in_a_for", """
        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            for i in range(n):
                if C:
                    return  #!
                tl.store(x_ptr + i, 1.0)
        """, consts={"C": True}, message=r"cannot have return statements inside while or for loops",
         triton=LOOP),
    Case("helper_with_a_return_in_a_loop", """
        @triton.jit
        def first_above(x_ptr, n, limit):
            for i in range(n):
                if tl.load(x_ptr + i) > limit:
                    return i  #!
            return n

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, first_above(x_ptr, n, 0.5).to(tl.float32))
        """, message=r"cannot have return statements inside while or for loops",
         triton=LOOP),
    Case("kernel_returns_a_value", """
        @triton.jit
        def kernel(x_ptr, n):  #!
            tl.store(x_ptr, 1.0)
            return n
        """, message=r"a kernel cannot return a value",
         triton=r"PassManager::run failed"),  # its backend cannot lower a kernel's tt.return of a value
]

ACCEPTED = [
    Case("kernel_early_return_at_run_time", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 3:
                return
            tl.store(x_ptr, 1.0)
        """, runs=[(5, {}, [0]), (2, {}, [1])]),
    Case("kernel_early_return_at_compile_time", """
        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            if C:
                return
            tl.store(x_ptr, 1.0)
        """, consts={"C": True}, runs=[(5, {"C": True}, [0]), (5, {"C": False}, [1])]),
    Case("helper_early_return_with_code_after", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v * 2
            w = v + 1
            return w

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, runs=[(5, {}, [10]), (2, {}, [3])]),
    Case("compile_time_if_else_returns_of_two_types", """
        @triton.jit
        def helper(v, C: tl.constexpr):
            if C:
                return v * 2
            else:
                return v.to(tl.float32) / 2

        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            tl.store(x_ptr, helper(n, C).to(tl.float32))
        """, consts={"C": True}, runs=[(5, {"C": True}, [10]), (5, {"C": False}, [2.5])]),
    Case("unreachable_return_of_the_same_type", """
        @triton.jit
        def helper(v, C: tl.constexpr):
            if C:
                return v * 2
            return v + 1

        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            tl.store(x_ptr, helper(n, C).to(tl.float32))
        """, consts={"C": True}, runs=[(5, {"C": True}, [10]), (5, {"C": False}, [6])]),
    Case("run_time_if_else_returns", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v * 2
            else:
                return v + 1

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, runs=[(5, {}, [10]), (2, {}, [3])]),
    Case("helper_with_early_return_called_in_a_loop", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v * 2
            return v + 1

        @triton.jit
        def kernel(x_ptr, n):
            for i in range(n):
                tl.store(x_ptr + i, helper(i).to(tl.float32))
        """, runs=[(6, {}, [1, 2, 3, 4, 8, 10])]),
    Case("name_set_in_both_branches_returning_first", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:
                y = 1.0
                return
            else:
                y = 2.0
            tl.store(x_ptr, y)
        """, runs=[(5, {}, [0]), (0, {}, [2])]),
    Case("nested_run_time_ifs_with_a_return", """
        @triton.jit
        def kernel(x_ptr, n):
            if n > 1:
                if n > 5:
                    return
                tl.store(x_ptr + 1, 2.0)
            tl.store(x_ptr, 1.0)
        """, runs=[(7, {}, [0, 0]), (3, {}, [1, 2]), (0, {}, [1, 0])]),
    Case("compile_time_return_inside_a_run_time_if", """
        @triton.jit
        def helper(v, C: tl.constexpr):
            if v > 0:
                if C:
                    return v * 2
                v = v + 1
            return v

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n, True).to(tl.float32))
        """, runs=[(5, {}, [10]), (-1, {}, [-1])]),
    Case("tuple_returns", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v, v
            return v + 1, v

        @triton.jit
        def kernel(x_ptr, n):
            a, b = helper(n)
            tl.store(x_ptr, (a * 10 + b).to(tl.float32))
        """, runs=[(5, {}, [55]), (2, {}, [32])]),
    Case("compile_time_elif_chain_falling_through", """
        @triton.jit
        def helper(v, C: tl.constexpr):
            if C == 1:
                return v + 1
            elif C == 2:
                return v + 2
            return v

        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            tl.store(x_ptr, helper(n, C).to(tl.float32))
        """, consts={"C": 2}, runs=[(5, {"C": 2}, [7]), (5, {"C": 3}, [5]), (5, {"C": 1}, [6])]),
    Case("return_at_the_end_of_a_helper", """
        @triton.jit
        def helper(v):
            w = v * 3
            return w

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, runs=[(5, {}, [15])]),
    Case("compile_time_return_not_taken_in_a_loop", """
        @triton.jit
        def kernel(x_ptr, n, C: tl.constexpr):
            for i in range(n):
                if C:
                    return
                tl.store(x_ptr + i, 1.0)
        """, consts={"C": False}, runs=[(3, {"C": False}, [1, 1, 1, 0])]),
    Case("return_inside_static_range", """
        @triton.jit
        def kernel(x_ptr, n):
            for i in tl.static_range(4):
                if i == 2:
                    return
                tl.store(x_ptr + i, 1.0)
            tl.store(x_ptr + 4, 5.0)
        """, runs=[(0, {}, [1, 1, 0, 0, 0])]),
    Case("run_time_return_inside_static_range", """
        @triton.jit
        def kernel(x_ptr, n):
            for i in tl.static_range(4):
                if n == i:
                    return
                tl.store(x_ptr + i, 1.0)
            tl.store(x_ptr + 4, 5.0)
        """, runs=[(2, {}, [1, 1, 0, 0, 0]), (0, {}, [0, 0, 0, 0, 0]), (7, {}, [1, 1, 1, 1, 5])]),
    Case("return_inside_nested_static_ranges", """
        @triton.jit
        def kernel(x_ptr, n):
            for i in tl.static_range(2):
                for j in tl.static_range(2):
                    if n == i * 2 + j:
                        return
                    tl.store(x_ptr + i * 2 + j, 1.0)
            tl.store(x_ptr + 4, 5.0)
        """, runs=[(3, {}, [1, 1, 1, 0, 0]), (1, {}, [1, 0, 0, 0, 0]), (9, {}, [1, 1, 1, 1, 5])]),
    Case("helper_returning_from_inside_static_range", """
        @triton.jit
        def position(v):
            for i in tl.static_range(4):
                if v == i * 3:
                    return i
            return -1

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, position(n).to(tl.float32))
        """, runs=[(6, {}, [2]), (0, {}, [0]), (5, {}, [-1])]),
    # A path that falls off the end of a function whose other paths return a value returns
    # an undefined value of that type (Triton's poison; tritium's is a zero): nothing may
    # rely on it, so the runs check only the paths that return.
    Case("helper_falling_off_its_end_after_a_return", """
        @triton.jit
        def helper(v):
            if v > 3:
                return v

        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, helper(n).to(tl.float32))
        """, runs=[(6, {}, [6]), (5, {}, [5])]),
    Case("falling_off_with_a_block_used_only_where_returned", """
        @triton.jit
        def helper(v):
            if v > 3:
                return tl.full([4], v, tl.int32) * 2

        @triton.jit
        def kernel(x_ptr, n):
            r = helper(n)
            if n > 3:
                tl.store(x_ptr + tl.arange(0, 4), r.to(tl.float32))
            else:
                tl.store(x_ptr, -1.0)
        """, runs=[(6, {}, [12, 12, 12, 12]), (1, {}, [-1, 0])]),
    Case("falling_off_after_an_else_that_returns", """
        @triton.jit
        def helper(v):
            if v > 3:
                pass
            else:
                return v + 0.5

        @triton.jit
        def kernel(x_ptr, n):
            r = helper(n)
            if n <= 3:
                tl.store(x_ptr, r)
        """, runs=[(2, {}, [2.5]), (7, {}, [0])]),
    Case("statements_after_a_return_in_its_own_list_are_skipped", """
        @triton.jit
        def kernel(x_ptr, n):
            tl.store(x_ptr, 1.0)
            return
            tl.store(x_ptr, undefined_value)
        """, runs=[(1, {}, [1])]),
]

STRICTER = []  # none left: session 26 gave a path falling off the end Triton's poison (a zero)


def load(case, directory):
    path = os.path.join(directory, f"{case.name}.py")
    with open(path, "w") as f:
        f.write(PREFIX_TRITIUM + case.src)
    spec = importlib.util.spec_from_file_location(f"early_return_{case.name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.kernel, path


def assert_located_error(case, tmp_path):
    kernel, path = load(case, str(tmp_path))
    with pytest.raises(tritium.CompilationError) as info:
        kernel[(1,)](np.zeros(8, np.float32), 5, **case.consts)
    line, column = case.location()
    text = str(info.value)
    assert re.match(rf"{re.escape(path)}:{line}:{column}: error: .*{case.message}", text), text


@pytest.mark.parametrize("case", REJECTED, ids=repr)
def test_tritium_rejects(case, tmp_path):
    assert_located_error(case, tmp_path)


@pytest.mark.parametrize("case", ACCEPTED, ids=repr)
def test_tritium_accepts(case, tmp_path):
    kernel, _ = load(case, str(tmp_path))
    for n, consts, expected in case.runs:
        x = np.zeros(8, np.float32)
        kernel[(1,)](x, n, **consts)
        np.testing.assert_array_equal(x[:len(expected)], np.array(expected, np.float32), err_msg=f"n={n} {consts}")


@pytest.mark.parametrize("case", STRICTER, ids=repr)
def test_tritium_is_stricter_than_triton_here(case, tmp_path):
    assert_located_error(case, tmp_path)


# -- the same programs under Triton 3.6 ------------------------------------------------------

TRITON_DRIVER = r"""
import importlib.util, json, os, sys, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
cases = json.load(sys.stdin)
directory = tempfile.mkdtemp()
out = {"version": triton.__version__}
for case in cases:
    path = os.path.join(directory, case["name"] + ".py")
    with open(path, "w") as f:
        f.write(case["src"])
    spec = importlib.util.spec_from_file_location(case["name"], path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    signature = {"x_ptr": "*fp32", "n": "i32"}
    signature.update({name: "constexpr" for name in case["consts"]})
    try:
        triton.compile(ASTSource(module.kernel, signature, case["consts"]), target=GPUTarget("cuda", 90, 32))
        out[case["name"]] = "accepts"
    except Exception as e:
        while e.__cause__ is not None:
            e = e.__cause__
        lines = str(e).strip().splitlines() or [""]
        out[case["name"]] = "rejects: " + type(e).__name__ + ": " + lines[-1][:200]
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def triton_verdicts():
    if not os.access(TRITON_PYTHON, os.X_OK):
        pytest.skip(f"no Triton to compare with: {TRITON_PYTHON} is missing (set TRITIUM_TRITON_PYTHON)")
    cases = [{"name": c.name, "src": PREFIX_TRITON + c.src, "consts": c.consts} for c in REJECTED + ACCEPTED + STRICTER]
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)  # tritium's package must not shadow anything there
    result = subprocess.run([TRITON_PYTHON, "-c", TRITON_DRIVER], input=json.dumps(cases), capture_output=True,
                            text=True, env=env, timeout=900, cwd=tempfile.gettempdir())
    if result.returncode != 0:
        pytest.fail(f"the Triton driver failed:\n{result.stderr[-3000:]}")
    verdicts = json.loads(result.stdout.strip().splitlines()[-1])
    if not verdicts["version"].startswith("3.6"):
        pytest.skip(f"these rules are Triton 3.6's; {TRITON_PYTHON} has Triton {verdicts['version']}")
    return verdicts


@pytest.mark.parametrize("case", REJECTED, ids=repr)
def test_triton_rejects_too(case, triton_verdicts):
    verdict = triton_verdicts[case.name]
    assert verdict.startswith("rejects") and re.search(case.triton, verdict), verdict


@pytest.mark.parametrize("case", ACCEPTED + STRICTER, ids=repr)
def test_triton_accepts(case, triton_verdicts):
    assert triton_verdicts[case.name] == "accepts", triton_verdicts[case.name]
