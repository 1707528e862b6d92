"""Writes to array elements in prange loops (unpy/typeinfer/array_races.py): writes proved
distinct per iteration compile as they are, updates that may meet become atomic, any other
write that may meet is a compile error naming both writes and the loop."""
import pytest

from unpy import ir
from unpy.errors import CompileError
from unpy.typeinfer.reductions import walk_stmts

import irtools


def atomics(body):
    """{target text: operator} of the atomic updates of the first function of `body`."""
    fn = irtools.typed_function(body)
    return {ir.format_expr(s.target): s.atomic for s in walk_stmts(fn.body)
            if isinstance(s, ir.Assign) and s.atomic}


def refusal(body) -> CompileError:
    with pytest.raises(CompileError) as caught:
        irtools.typed(body)
    return caught.value


def nested(body, indent=16):
    """`body` (lines indented from 0) at the indentation of a prange's body in a test."""
    return body.replace("\n", "\n" + " " * indent)


DISTINCT = {
    "loop variable": "out[i] = a[i]",
    "a row": "for j in range(m):\n    grid[i, j] = a[j]",
    "nested pranges": "for j in prange(m):\n    grid[i, j] = a[j]",
    "interleaved": "out[2 * i] = a[i]\nout[2 * i + 1] = -a[i]",
    "through a name assigned once": "k = 3 * i\nout[k] = 1.0\nout[k + 2] = 2.0",
    "reversed": "out[a.shape[0] - 1 - i] = a[i]",
    "flattened rows": "for j in range(m):\n    out[i * m + j] = a[j]",
    "a block of its own": "for j in range(i * m, i * m + m):\n    out[j] = a[i]",
    "triangle and its mirror": "for j in range(i, m):\n    grid[i, j] = 1.0\n    grid[j, i] = 2.0",
    "one iteration": "if i == 0:\n    for j in range(m):\n        out[j] = 0.0",
    "a view of a row": "row = grid[i]\nfor j in range(m):\n    row[j] = a[j]",
    "an array of the iteration": "tmp = np.zeros(4)\ntmp[0] = a[i]\nout[i] = tmp[0]",
    "a whole-array statement": "grid[i, :] = a[0] * 2.0",
    "a column below and a row beside the diagonal": (   # npbench's correlation (Numba's)
        "grid[i + 1:m, i] = 1.0\ngrid[i, i + 1:m] = 2.0"),
    "slices from the diagonal": "grid[i:m, i] = 1.0\ngrid[i, i:m] = 2.0",
}


@pytest.mark.parametrize("body", list(DISTINCT.values()), ids=list(DISTINCT))
def test_distinct_writes_are_plain(body):
    assert atomics(f"""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 2]',
                       'int64', None)
        def f(a, out, grid, m):
            for i in prange(a.shape[0]):
                {nested(body)}
        """) == {}


def test_a_prange_with_a_step_known_at_run_time():
    assert atomics("""
        @unpython.type('ndarray[int64, 1]', 'int64', 'int64', 'int64', None)
        def f(a, start, stop, step):
            for i in prange(start, stop, step):
                a[i] = a[i] * 2 + i
        """) == {}


def test_a_step_of_two_keeps_neighbours_apart():
    assert atomics("""
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(0, a.shape[0] - 1, 2):
                a[i] = 1.0
                a[i + 1] = 2.0
        """) == {}


UPDATES = {
    "h[b[i]] += w[i]": "+", "h[b[i]] -= w[i]": "-", "h[b[i]] *= w[i]": "*",
    "h[b[i]] = w[i] + h[b[i]]": "+", "h[b[i]] = max(h[b[i]], w[i])": "max",
    "h[b[i]] = min(w[i], h[b[i]])": "min", "h[0] += w[i]": "+",
}


@pytest.mark.parametrize("update, op", list(UPDATES.items()))
def test_updates_that_may_meet_are_atomic(update, op):
    found = atomics(f"""
        @unpython.type('ndarray[int64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(b, w, h):
            for i in prange(b.shape[0]):
                {update}
        """)
    assert list(found.values()) == [op]


def test_bitwise_updates_of_integers_and_column_sums():
    found = atomics("""
        @unpython.type('ndarray[int64, 2]', 'ndarray[int64, 1]', 'ndarray[int64, 1]', None)
        def f(a, bits, sums):
            for i in prange(a.shape[0]):
                for j in range(a.shape[1]):
                    bits[a[i, j] % 64] |= 1
                    sums[j] += a[i, j]
        """)
    assert found == {"bits[(a[i, j] % 64)]": "|", "sums[j]": "+"}


def test_a_distinct_update_is_not_atomic():
    assert atomics("""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(a, h):
            for i in prange(a.shape[0]):
                h[i] += a[i]
        """) == {}


REFUSED = {
    "a scatter": ("out[b[i]] = w[i]", "'out[b[i]] = ...' may write one element in two "
                  "iterations of the prange at line 9"),
    "a neighbour's element": ("out[i] = w[i]\nout[i + 1] = 0.0",
                              "'out[i] = ...' and 'out[(i + 1)] = ...' (line 11) may write"),
    "a row too long": ("for j in range(3):\n    out[2 * i + j] = 0.0",
                       "'out[((2 * i) + j)] = ...' may write"),
    "an update beside a store": ("out[b[i]] += w[i]\nout[i] = 0.0",
                                 "'out[i] = ...' and 'out[b[i]] = ...' (line 10) may write"),
    "slices that all start at 0": ("out[0:i + 1] = w[i]", "'out[0:i + 1] = w[i]' may write "
                                   "one element in two iterations of the prange at line 9"),
    "a slice starting before the iteration": (
        "out[i - 1:i + 1] = w[i]", "'out[i - 1:i + 1] = w[i]' may write one element"),
    "a slice of a name of unknown sign": ("out[b[0] + i:b[0] + i + 1] = w[i]",
                                          "may write one element"),
    "a value that reads the array": ("out[b[i]] += out[0]", "it is not an update compiled atomically"),
    "an update with the element second": ("out[b[i]] = w[i] - out[b[i]]",
                                          "it is not an update compiled atomically"),
}


@pytest.mark.parametrize("body, message", list(REFUSED.values()), ids=list(REFUSED))
def test_other_writes_that_may_meet_are_refused(body, message):
    error = refusal(f"""
        @unpython.type('ndarray[int64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(b, w, out):
            for i in prange(b.shape[0]):
                {nested(body)}
        """)
    assert message in error.message
    assert "compiled as an atomic update" in error.message


def test_one_operator_per_array():
    error = refusal("""
        @unpython.type('ndarray[int64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]', None)
        def f(b, w, h):
            for i in prange(b.shape[0]):
                h[b[i]] += w[i]
                h[b[i]] = max(h[b[i]], w[i])
        """)
    assert "'h' is updated with + at line 10 and with max here" in error.message
    assert error.line == 11


# --- reads of elements the loop writes ----------------------------------------------------------

READS_APART = {
    "its own element": "a[i] = a[i] * 2.0 + a[i]",
    "another array's neighbours": "out[i] = w[i - 1] + w[i + 1]",
    "a row of its own": "for j in range(1, m):\n    grid[i, j] = grid[i, j - 1] + 1.0",
    "a relaxation (Floyd-Warshall)": "for j in range(m):\n    grid[i, j] = min(grid[i, j], "
                                     "grid[i, 0] + grid[0, j])",
}


@pytest.mark.parametrize("body", list(READS_APART.values()), ids=list(READS_APART))
def test_reads_that_no_other_iteration_writes(body):
    irtools.typed(f"""
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                       'ndarray[float64, 2]', 'int64', None)
        def f(a, w, out, grid, m):
            for i in prange(1, a.shape[0] - 1):
                {nested(body)}
        """)


def test_red_black_neighbours_are_apart():
    irtools.typed("""
        @unpython.type('ndarray[float64, 1]', None)
        def f(a):
            for i in prange(1, a.shape[0] - 1, 2):
                a[i] = 0.5 * (a[i - 1] + a[i + 1])
        """)


READS_RACING = {
    "the previous element": ("a[i] = a[i - 1] + 1.0", "reads a[(i - 1)], which another "
                             "iteration of the prange at line 10 may write ('a[i] = ...'"),
    "the whole array": ("a[i] = np.sum(a)", "reads an element of 'a'"),
    "a histogram being updated": ("h[b[i]] += 1.0\nif h[0] > 3.0:\n    out[i] = 1.0",
                                  "reads h[0], which another iteration"),
    "a test of another's element": ("if a[i + 1] > 0.0:\n    a[i] = 0.0", "reads a[(i + 1)]"),
    "a.flat's next element": ("a.flat[i] = a.flat[i + 1]", "reads an element of 'a'"),
}


@pytest.mark.parametrize("body, message", list(READS_RACING.values()), ids=list(READS_RACING))
def test_reads_of_elements_other_iterations_write_are_refused(body, message):
    error = refusal(f"""
        @unpython.type('ndarray[int64, 1]', 'ndarray[float64, 1]', 'ndarray[float64, 1]',
                       'ndarray[float64, 1]', None)
        def f(b, a, h, out):
            for i in prange(1, b.shape[0] - 1):
                {nested(body)}
        """)
    assert message in error.message, error.message
    assert "so it would read whichever value is there" in error.message
