"""Lists of scalars (unpy/typeinfer/lists.py): the items' type is np.array's dtype of every
value the list takes anywhere in the function, weak where all are Python numbers."""
import pytest

from unpy import ir
from unpy.ir import ListType, Scalar
from unpy.typeinfer.reductions import outermost_pranges, walk_exprs

import irtools


@pytest.mark.parametrize("values, items", [
    ("i", Scalar("int64", weak=True)),                       # Python ints
    ("i * 0.5", Scalar("float64", weak=True)),               # Python floats
    ("i if i % 2 else i * 0.5", Scalar("float64", weak=True)),
    ("x[i]", Scalar("float32")),                             # np.float32 values
    ("x[i] * 2.0", Scalar("float32")),                       # (a Python float is weak)
    ("i > 2", Scalar("bool")),
])
def test_the_items_type_joins_every_value_appended(values, items):
    fn = irtools.typed_function(f"""
        @unpython.type('ndarray[float32, 1]', 'int64')
        def f(x):
            out = []
            for i in range(x.shape[0]):
                out.append({values})
            return len(out)
        """)
    assert fn.locals["out"] == ListType(items)


def test_the_literal_and_the_stored_values_count_too():
    """[1] of ints, a float stored and an np.float32 appended: np.array of such values is
    float64, and not weak (an np.float32 among them)."""
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float32, 1]', 'int64')
        def f(x):
            out = [1]
            out.append(x[0])
            out[0] = 2.5
            return len(out)
        """)
    assert fn.locals["out"] == ListType(Scalar("float64"))


def test_a_list_that_takes_no_value_is_of_float64():
    fn = irtools.typed_function("""
        @unpython.type('int64', 'int64')
        def f(n):
            out = []
            return np.array(out).shape[0] + n
        """)
    assert fn.locals["out"] == ListType(Scalar("float64", weak=True))


def test_items_read_before_the_values_appended_below_take_their_type():
    """`out[-1]` is read (as an index) before the append that gives the list its ints: typed
    again once they are known."""
    fn = irtools.typed_function("""
        @unpython.type('ndarray[float64, 1]', 'int64')
        def f(a):
            out = []
            k = 0
            while k < 5:
                if len(out) > 0:
                    k = k + 1 + int(a[out[-1]] > 0.5)
                else:
                    k = k + 1
                out.append(k % a.shape[0])
            return len(out)
        """)
    assert fn.locals["out"] == ListType(Scalar("int64", weak=True))
    assert fn.locals["k"] == Scalar("int64", weak=True)


def test_an_array_statement_reads_items_before_its_nest():
    """A list lives on the host: the nests of array statements (GPU candidates in a @gpu
    function) read the items computed before them."""
    fn = irtools.typed_function("""
        @unpython.gpu
        @unpython.type('ndarray[float64, 1]', 'ndarray[float64, 1]')
        def f(a):
            w = [2.0, 3.0]
            b = a * w[-1] + len(w)
            return np.full(a.shape[0], w[0]) + np.clip(b, w[0], w[1])
        """)
    nests = list(outermost_pranges(fn.body))
    assert nests and not any(isinstance(e, (ir.ListItem, ir.ListLen))
                             for nest in nests for e in walk_exprs(nest))
