"""Module-level string constants as type strings (issue 6 item 5)."""
import pytest
from unpy.errors import CompileError
from unpy.frontend.constants import module_bindings
from unpy.frontend.discover import discover

import irtools


def types_of(body):
    module = discover("/virtual/m.py", irtools.source(body))
    return [(d.types, d.locals) for d in module.functions]


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
