"""Which inner `range` loops of a prange nest are proved independent
(unpy/typeinfer/independent_loops.py): those a GPU kernel may run as NDRange levels, and the
C++ path's loop optimisations take as a nest's middle level (marked without sinking). Each case
is a nest as users write it; the loops marked are named by their variables."""
import irtools
import pytest

from unpy import ir
from unpy.typeinfer.independent_loops import mark_independent_levels, with_independent_levels
from unpy.typeinfer.reductions import walk_stmts

A2 = "'ndarray[float64, 2]'"
A3 = "'ndarray[float64, 3]'"


def _function(args: str, body: str) -> ir.Function:
    return irtools.typed_function(f"@unpython.type({args}, None)\ndef f(a, b, c):\n"
                                  + "\n".join("    " + line
                                               for line in body.strip("\n").splitlines()))


def marked(args: str, body: str, sink: bool = True) -> list:
    """The loop variables marked independent in the outermost prange of `body`."""
    fn = _function(args, body)
    outer = next(s for s in fn.body if isinstance(s, ir.For) and s.parallel)
    found, loop = [], with_independent_levels(outer, sink)
    while loop.body and isinstance(loop.body[-1], ir.For):
        before, loop = loop.body[:-1], loop.body[-1]
        if loop.independent:
            assert loop.body[:loop.sunk] == before      # the statements before, copied in
            found.append(loop.var + "+" * loop.sunk)
    return found


ARGS2 = f"{A2}, {A2}, {A2}"

INDEPENDENT = {
    "dot product order": """
for i in prange(a.shape[0]):
    for j in range(b.shape[1]):
        s = 0.0
        for k in range(a.shape[1]):
            s += a[i, k] * b[k, j]
        c[i, j] = s
""",
    "in place, one element each": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        a[i, j] = a[i, j] * 2.0 + b[i, j]
""",
    "stencil reading another array": """
for i in prange(1, a.shape[0] - 1):
    for j in range(1, a.shape[1] - 1):
        c[i, j] = a[i - 1, j] + a[i + 1, j] + a[i, j - 1] + a[i, j + 1]
""",
    "triangle": """
for i in prange(a.shape[0]):
    for j in range(i + 1):
        a[i, j] = 0.5 * a[i, j] + b[j, i]
""",
    "private scalars and a branch": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        t = a[i, j]
        if t < 0.0:
            t = -t
        c[i, j] = t + b[i, j]
""",
    "strided writes": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1] // 2):
        c[i, 2 * j] = a[i, j]
        c[i, 2 * j + 1] = b[i, j]
""",
}

SUNK = {
    "scalars of the row first": ("""
for i in prange(a.shape[0]):
    y = 0.5 * i
    y0 = int(math.floor(y))
    for j in range(a.shape[1]):
        c[i, j] = a[y0 % a.shape[0], j] * y
""", ["j++"]),
    "a scalar the loop assigns too": ("""
for i in prange(a.shape[0]):
    t = a[i, 0]
    for j in range(a.shape[1]):
        t = a[i, j] * 2.0
        c[i, j] = t
""", []),
    "a view before the loop": ("""
for i in prange(a.shape[0]):
    row = a[i]
    for j in range(a.shape[1]):
        c[i, j] = row[j]
""", []),
}

CARRIED = {
    "running sum along the row": """
for i in prange(a.shape[0]):
    for j in range(1, a.shape[1]):
        a[i, j] = a[i, j] + a[i, j - 1]
""",
    "reads the next element it will write": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1] - 1):
        a[i, j] = a[i, j + 1]
""",
    "a scalar carried across iterations": """
for i in prange(a.shape[0]):
    t = 0.0
    for j in range(a.shape[1]):
        t = t + a[i, j]
        c[i, j] = t
""",
    "every iteration writes one element": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        c[i, 0] = a[i, j]
""",
    "break": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        if a[i, j] < 0.0:
            break
        c[i, j] = a[i, j]
""",
    "an index read from an array": """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        c[i, int(b[i, j]) % a.shape[1]] = a[i, j]
""",
}


@pytest.mark.parametrize("case", list(INDEPENDENT))
def test_independent_iterations_are_marked(case):
    assert marked(ARGS2, INDEPENDENT[case]) == ["j"], case


@pytest.mark.parametrize("case", list(CARRIED))
def test_dependent_iterations_are_not(case):
    assert marked(ARGS2, CARRIED[case]) == [], case


def test_levels_below_a_marked_loop_and_at_most_three():
    assert marked(f"{A3}, {A3}, {A3}", """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        for k in range(a.shape[2]):
            c[i, j, k] = a[i, j, k] + b[i, j, k]
""") == ["j", "k"]
    # The loop below a dependent one stays a loop of the work-item.
    assert marked(ARGS2, """
for i in prange(a.shape[0]):
    for j in range(a.shape[1]):
        for k in range(c.shape[1]):
            c[i, k] = c[i, k] + a[i, j]
""") == []


@pytest.mark.parametrize("case", list(SUNK))
def test_scalar_assignments_before_the_loop_are_sunk_into_it(case):
    body, expected = SUNK[case]
    assert marked(ARGS2, body) == expected, case


@pytest.mark.parametrize("case", list(SUNK))
def test_the_cpp_path_marks_without_sinking(case):
    """sink=False (the C++ path: its loops run as marked): a loop after other statements is
    not marked, nor anything below it; a loop alone in its parent's body is, as with sinking."""
    body, _ = SUNK[case]
    assert marked(ARGS2, body, sink=False) == []
    assert marked(ARGS2, INDEPENDENT["dot product order"], sink=False) == ["j"]


def test_every_outermost_prange_of_a_function_is_marked():
    fn = mark_independent_levels(_function(ARGS2, """
for t in range(3):
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = a[i, j] * 2.0 + b[i, j]
if a.shape[0] > 2:
    for i in prange(a.shape[0]):
        for j in range(a.shape[1]):
            c[i, j] = c[i, j - 1] + 1.0
"""))
    nests = [s for s in walk_stmts(fn.body) if isinstance(s, ir.For) and s.parallel]
    assert [nest.body[0].independent for nest in nests] == [True, False]
