"""The weights of expensive operations (unpy/work.py) that the OpenMP team threshold and the
GPU-or-OpenMP estimate share."""
import pytest

import irtools
from unpy import ir
from unpy.typeinfer.reductions import walk_stmts
from unpy.work import COMPLEX_DIVIDE, COMPLEX_MULTIPLY, LIBM_CALL, expensive_work


def _returned(expr: str, types=("float64", "float64")) -> ir.Return:
    fn = irtools.typed_function(f"""
        @unpython.type('{types[0]}', '{types[1]}', '{types[0]}')
        def f(x, y):
            return {expr}
        """)
    return next(s for s in walk_stmts(fn.body) if isinstance(s, ir.Return))


@pytest.mark.parametrize("expr, extra", [
    ("x + y * 2.0 - x / y", 0),
    ("np.sin(x) + np.cos(y)", 2 * LIBM_CALL),
    ("np.arctan2(x, y)", LIBM_CALL),
    ("math.exp(x) * np.log(y)", 2 * LIBM_CALL),
    ("np.sqrt(x)", 0),                  # a vectorised instruction on floats
    ("x ** 2 + y ** 1", 0),             # a product (g++ makes one of pow(x, 2.0))
    ("x ** y + y ** 0.5", 2 * LIBM_CALL),
])
def test_float_operations(expr, extra):
    assert expensive_work(_returned(expr)) == extra


@pytest.mark.parametrize("expr, extra", [
    ("x + y", 0),
    ("x * y", COMPLEX_MULTIPLY),
    ("x / y", COMPLEX_DIVIDE),
    ("abs(x) + 0j", LIBM_CALL),         # hypot
    ("np.sqrt(x)", LIBM_CALL),
])
def test_complex_operations(expr, extra):
    assert expensive_work(_returned(expr, ("complex128", "complex128"))) == extra
