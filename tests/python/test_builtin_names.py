"""The compiler's builtin registry (src/lower/builtin_registry.h) and tritium.language agree
both ways (issue 7): every tl.<name> the compiler lowers exists in the Python module (so
`from tritium.language import name` and attribute access work outside kernels), and every
function the module offers is one the compiler knows (a builtin, or a planned one that
raises a located "not supported yet")."""

import pytest

import tritium.language as tl

C = pytest.importorskip("tritium._C")

# Module-level names that are types or values rather than builtins: the dtypes (callable, to
# cast), the classes user code names in annotations and isinstance checks (`tl.tensor`,
# `tl.dtype`, `tl.block_type`, `tl.tensor_descriptor`, `tl.const`), the PropagateNan enum,
# const_pointer_type, a host-side type tritium does not build inside kernels, and str_to_ty,
# a host-side parser of type strings (Triton's test helpers call it); Triton 3.6's host-side
# constexpr_type and slice classes and its must_use_result decorator.
NOT_BUILTINS = {"dtype", "block_type", "tensor", "tensor_descriptor", "tensor_descriptor_base", "PropagateNan",
                "const_pointer_type", "TensorWrapper", "reinterpret", "const", "str_to_ty", "constexpr_type",
                "slice", "must_use_result"}


def registry():
    return C.builtins()


def module_functions():
    out = set()
    for name in tl.__all__:
        value = getattr(tl, name)
        if name in NOT_BUILTINS or isinstance(value, tl.dtype) or not callable(value):
            continue
        out.add(name)
    return out


def test_every_builtin_is_in_the_language_module():
    functions = {name for name, (function, _method) in registry().items() if function}
    missing = sorted(name for name in functions if not hasattr(tl, name))
    assert missing == []


def test_every_language_function_is_a_builtin():
    known = set(registry())
    unknown = sorted(name for name in module_functions() if name not in known)
    assert unknown == []


def test_planned_builtins_are_named_but_not_lowered():
    planned = {name for name, (function, method) in registry().items() if not function and not method}
    assert "dot" not in planned
    # dot_scaled was the last planned name; it is lowered now (builtins_dot_scaled.cpp).
    assert "dot_scaled" not in planned
    assert registry()["dot_scaled"] == (True, False)
    assert callable(tl.dot_scaled)


def test_prelude_builtins_are_registry_builtins_and_language_names():
    # The builtins written in the Triton-language prelude (src/lower/prelude/) are registry
    # entries like any other, so the two tests above cover them; here they must be there.
    prelude = set(C.prelude_builtins())
    assert {"cdiv", "sigmoid", "softmax"} <= prelude
    known = registry()
    assert sorted(name for name in prelude if name not in known or not known[name][0]) == []
    assert sorted(name for name in prelude if not hasattr(tl, name)) == []


def test_prelude_builtins_need_no_stub_in_the_language_module():
    # language.py writes no stub for them: each comes from the prelude's compiled-in list, so
    # a builtin written in the prelude is one file (DESIGN.md, the files-touched table).
    source = open(tl.__file__, encoding="utf-8").read()
    for name in C.prelude_builtins():
        assert f"def {name}(" not in source
        assert name in tl.__all__
        with pytest.raises(RuntimeError, match=f"tl.{name} can only be used inside"):
            getattr(tl, name)(1)
    from tritium.language import cdiv  # noqa: F401  (from-imports see them too)


def test_table_builtins_need_no_stub_in_the_language_module():
    # The builtins made from op-table rows (tl.atomic_<kind> of atomics.def, elementwise.def's
    # exp, sqrt, where, fma, ...) get their stubs and signatures from the registry, so a new
    # row touches no Python file (DESIGN.md, the files-touched table).
    import inspect
    source = open(tl.__file__, encoding="utf-8").read()
    rows = dict(C.table_builtins())
    assert {"atomic_add", "atomic_xchg", "exp", "where", "fma"} <= set(rows)
    for name, params in rows.items():
        assert f"def {name}(" not in source
        assert name in tl.__all__
        assert list(inspect.signature(getattr(tl, name)).parameters) == [p.rstrip("=") for p in params]
        with pytest.raises(RuntimeError, match=f"tl.{name} can only be used inside"):
            getattr(tl, name)(1)
    assert str(inspect.signature(tl.atomic_add)) == "(pointer, val, mask=None, sem=None, scope=None)"
    assert str(inspect.signature(tl.where)) == "(condition, x, y)"
