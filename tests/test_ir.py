"""The IR: one JSON serialiser (to_json/from_json round-trips every typed module) and one
printer (Python-like text)."""
import json
import math

import pytest

from unpy import ir
from unpy.pipeline import compile_to_ir

import diffcheck
import irtools

MODULES = sorted(diffcheck.KERNELS.glob("*.py")) + sorted((diffcheck.REPO / "examples")
                                                          .glob("[!_]*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_json_round_trip(path):
    module = compile_to_ir(str(path), path.read_text())
    text = ir.to_json(module)
    json.loads(text)                                  # plain JSON (no Python objects)
    again = ir.from_json(text)
    assert again == module
    assert ir.to_json(again) == text
    for fn in again.functions:
        assert ir.format_function(fn) == ir.format_function(
            next(f for f in module.functions if f.name == fn.name))


@pytest.mark.parametrize("path", MODULES[:4], ids=lambda p: p.name)
def test_copy_tree_is_a_deep_copy(path):
    """ir.copy_tree gives what copy.deepcopy gives: an equal tree, no mutable node shared with
    the original, a node shared within the tree still shared in the copy."""
    module = compile_to_ir(str(path), path.read_text())
    copied = ir.copy_tree(module)
    assert copied == module and ir.to_json(copied) == ir.to_json(module)
    original_ids = {id(x) for x in _mutable_nodes(module)}
    assert not original_ids & {id(x) for x in _mutable_nodes(copied)}
    shared = ir.Name("x", (1, 0), ir.Scalar("int64"))
    pair = ir.copy_tree([ir.ExprStmt(shared, (1, 0)), ir.ExprStmt(shared, (2, 0))])
    assert pair[0].value is pair[1].value and pair[0].value is not shared
    assert pair[0].value.type is shared.type        # types are frozen: shared


def _mutable_nodes(x):
    if isinstance(x, (list, dict)):
        yield x
    values = x.values() if isinstance(x, dict) else x if isinstance(x, list) else \
        vars(x).values() if hasattr(x, "__dataclass_fields__") else ()
    if hasattr(x, "__dataclass_fields__") and not x.__dataclass_params__.frozen:
        yield x
    for v in values:
        yield from _mutable_nodes(v)


def test_round_trip_keeps_types_and_locations():
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float32, 2]', 'float32')
        def f(a):
            s = np.float32(0)
            for i in prange(a.shape[0]):
                s += a[i, 0] * 0.5
            return s
        """)
    again = ir.from_json(ir.to_json(fn))
    loop = again.body[1]
    assert loop.reductions == [ir.Reduction("s", "+")]
    assert isinstance(loop.loc, tuple) and loop.loc == fn.body[1].loc
    assert again.locals["s"] == ir.Scalar("float32")
    assert again.params[0].type == ir.Array("float32", 2)


def test_special_float_constants_round_trip():
    const = ir.Const(math.inf, (3, 4), ir.Scalar("float64", weak=True))
    assert ir.from_json(ir.to_json(const)) == const


def test_printer():
    fn = irtools.typed_function("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', 'int64', 'float64')
        def f(a, k):
            s = 0.0
            for i in prange(a.shape[0]):
                if a[i] > 0.0 and not k:
                    s += a[i] ** 2
                elif k < 0:
                    s += -a[i]
            while k > 0:
                k -= 1
                continue
            return s if k == 0 else float(k)
        """)
    text = ir.format_function(fn)
    lines = text.split("\n")
    assert lines[0] == "@gpu def f(a: ndarray[float64, 1], k: int64) -> float64:"
    assert "    # local s: float64" in lines
    assert "    for i in prange(0, a.shape[0], 1):  # reductions: +:s  # gpu nest 0" in lines
    assert "        if ((a[i] > 0.0) and (not k)):" in lines
    assert "            s = (s + (a[i] ** float64(2)))" in lines           # the cast is shown
    assert lines[lines.index("        else:") + 1] == "            if (k < 0):"
    assert "    while (k > 0):" in lines and "        continue" in lines
    assert lines[-1].startswith("    return (s if (k == 0) else")
