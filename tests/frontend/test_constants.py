"""Module-level constants: strings as type strings (issue 6 item 5), numbers read by compiled
code and defaults."""
import math
import re

import gast
import pytest
from unpy.errors import CompileError
from unpy.frontend.constants import NotConstant, module_bindings
from unpy.frontend.discover import discover

import irtools


def types_of(body):
    module = discover("/virtual/m.py", irtools.source(body))
    return [(d.signatures[0].types, d.locals) for d in module.functions]


def test_aliases_and_their_concatenations():
    assert types_of("""
        T = 'float32'
        F2 = 'ndarray[float64, 2]'
        S1 = 'ndarray[' + T + ', 1]'
        ACC = T

        @unpython.locals(s=ACC, t=T + '')
        @unpython.type(F2, S1, 'ndarray[' + T + ', 2]', None)
        def f(a, b, c):
            pass
        """) == [(["ndarray[float64, 2]", "ndarray[float32, 1]", "ndarray[float32, 2]", None],
                  {"s": "float32", "t": "float32"})]


@pytest.mark.parametrize("body, reason", [
    ("F = 'int64'\nF = 'int32'\n", r"'F' is bound more than once .*assigned at line 7; "
                                   r"assigned at line 8"),
    ("F = 'int64'\ndef g():\n    global F\n", r"declared global in function 'g' at line 9"),
    ("F = 3\n", r"'F' \(line 7\) is not a constant string: its value is not made"),
    ("T = 'int'\nF = f'{T}64'\n", r"'F' \(line 8\) is not a constant string: f-strings"),
    ("from os import sep as F\n", r"'F' is imported at line 7"),
    ("for F in ['int64']:\n    pass\n", r"other than a plain assignment at the top level"),
    ("if True:\n    F = 'int64'\n", r"other than a plain assignment at the top level"),
    ("F = G = 'int64'\n", r"other than a plain assignment"),
    ("F = 'int' + H\nH = '64'\n", r"'H' is assigned at line 8, after this use"),
])
def test_refused_constants_point_at_the_use(body, reason):
    source = irtools.source(body + "\n@unpython.type(F, F)\ndef f(n):\n    return n\n")
    with pytest.raises(CompileError, match=reason) as info:
        discover("/virtual/m.py", source)
    error = info.value
    assert error.source_line == "@unpython.type(F, F)" and error.col == 15


def test_use_before_the_assignment_is_refused():
    source = irtools.source("@unpython.type(F, F)\ndef f(n):\n    return n\nF = 'int64'\n")
    with pytest.raises(CompileError, match=r"'F' is assigned at line 10, after this use"):
        discover("/virtual/m.py", source)


def test_bindings_of_module_names_only():
    module = discover("/virtual/m.py", irtools.source("""
        A = 'x'
        def g(A):
            B = 1
            return [C for C in range(3)]
        class K:
            A = 2
        """))
    found = {name: [what for _, what, _ in where]
             for name, where in module_bindings(module.tree).items()}
    assert found["A"] == ["assigned"] and found["g"] == ["defined"] and found["K"] == ["defined"]
    assert "B" not in found and "C" not in found


def test_global_in_a_nested_function_is_one_binding():
    module = discover("/virtual/m.py", irtools.source("""
        A = 'x'
        def g():
            def h():
                global A
        """))
    assert [what for _, what, _ in module_bindings(module.tree)["A"]] == [
        "assigned", "declared global in function 'h'"]


def numbers_of(body):
    """name -> value of each module-level name of `body` the numeric constants accept, or the
    reason they refuse it."""
    module = discover("/virtual/m.py", irtools.source(body))
    found = {}
    for stmt in module.tree.body:
        if isinstance(stmt, gast.Assign):
            use = stmt.targets[0]
            try:
                found[use.id] = module.numbers.value(use, ordered=False)
            except NotConstant as refusal:
                found[use.id] = refusal.reason
    return found


def test_numeric_constants_and_their_arithmetic():
    found = numbers_of("""
        from math import pi
        N = 8
        M = -N // 3 + 2 ** 4
        X = 1e-3 * N
        T = 2 * pi + np.e
        B = not True
        S = 1 << N | 1
        """)
    assert found == {"N": 8, "M": 13, "X": 0.008, "T": 2 * math.pi + math.e, "B": False,
                     "S": 257}
    assert type(found["N"]) is int and type(found["B"]) is bool


@pytest.mark.parametrize("body, reason", [
    ("A = 1\nA = 2\n", r"'A' is bound more than once .*assigned at line 7; assigned at line 8"),
    ("A = 'x'\n", r"'A' \(line 7\) is not a numeric constant: its value is not made of number"),
    ("A = B + 1\nB = 2\n", r"'A' \(line 7\) is not a numeric constant: 'B' is assigned at "
                           r"line 8, after this use"),
    ("A = 1 / 0\n", r"computing it raises ZeroDivisionError"),
    ("A = 3 ** 1000\n", r"the integer is too large for compiled code"),
    ("A = 2j\n", r"its value is not made of number literals"),
    ("A = np.zeros(3)\n", r"its value is not made of number literals"),
])
def test_refused_numeric_constants(body, reason):
    assert re.search(reason, numbers_of(body)["A"])
