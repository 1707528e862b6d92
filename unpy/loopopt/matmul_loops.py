"""Matrix products written as loops call the BLAS, under --fastmath only (issue 22).

    for i in prange(m):                      c = a @ b, where cpp_emit's unpy::blas_matmul takes
        for j in range(n):       # or prange     the operands (float32 or float64 alike, a layout
            s = 0.0                              a BLAS reads, c C-contiguous and overlapping
            for k in range(p):                   neither, the product not tiny) and OpenMP runs
                s += a[i, k] * b[k, j]           the whole nest; else the loops as they are
            c[i, j] = s

Either operand may be read across (`a[k, i]`: the product reads a.T; `b[j, k]`: b.T), so
`s += x[k, i] * x[k, j]` (a Gram matrix) is `x.T @ x`; the factors in either order.

Legal where the sum may be reordered: the BLAS adds in its own order, in blocks, with FMA, so
its result differs from the loops' in the last bits. That is what --fastmath allows (the build
of the default keeps every result equal to the interpreter's: no pass reorders a sum there).
The loops compute the product exactly where they run from 0 to the operands' dimensions with
step 1 (checked at run time: `ir.For.blas_when`) and nothing else happens in them: the
accumulator, `j` and `k` are assigned in the prange's iterations, so the function does not
read them after the nest (typeinfer refuses that: the BLAS leaves them unset), and the arrays
are distinct and not written elsewhere in the nest (unpy::blas_matmul checks that `c`
overlaps neither operand). Under those conditions no index can be out of range, so the BLAS
also raises nothing the loops would."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.rewrite import const
from unpy.typeinfer.build_ir import compare
from unpy.typeinfer.reductions import reads_of

DTYPES = ("float32", "float64")


def matmul_loops(fn: ir.Function) -> ir.Function:
    """`fn` with `blas` and `blas_when` set on each outermost prange nest of the form above."""
    def visit(body):
        out = []
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                out.append(_with_blas(s, fn) or s)
            elif isinstance(s, (ir.For, ir.While)):
                out.append(dataclasses.replace(s, body=visit(s.body)))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, body=visit(s.body), orelse=visit(s.orelse)))
            else:
                out.append(s)
        return out
    return dataclasses.replace(fn, body=visit(fn.body))


def _with_blas(outer: ir.For, fn: ir.Function):
    """`outer` with its BLAS call, or None where it is not a matrix product of the form."""
    if outer.blas or outer.reductions or len(outer.body) != 1:
        return None
    middle = outer.body[0]
    if not isinstance(middle, ir.For) or middle.reductions or len(middle.body) != 3:
        return None
    init, inner, store = middle.body
    if not (isinstance(inner, ir.For) and not inner.parallel and len(inner.body) == 1):
        return None
    if not all(_from_zero_by_one(loop) for loop in (outer, middle, inner)):
        return None
    i, j, k = outer.var, middle.var, inner.var
    if not (isinstance(init, ir.Assign) and isinstance(init.target, ir.Name)
            and _is_zero(init.value)):
        return None
    s = init.target.id
    dtype = getattr(fn.locals.get(s), "dtype", None)
    if dtype not in DTYPES:
        return None
    product = _accumulated(inner.body[0], s)
    if product is None or not (isinstance(store, ir.Assign) and not store.atomic):
        return None
    out = store.target
    if not (_element(out, dtype) and _names(out.indices) == [i, j]
            and isinstance(store.value, ir.Name) and store.value.id == s):
        return None
    operands = _operands(product, dtype, i, j, k)
    if operands is None:
        return None
    a, b = operands
    if out.array.id in (a.array.id, b.array.id):
        return None
    # Nothing in the nest reads the loop bounds' names differently from before it: the bounds
    # are names, constants and shapes, and the nest writes none of those names.
    bounds = [outer.stop, middle.stop, inner.stop]
    if not all(_plain(e) for e in bounds) or set(reads_of(bounds)) & {i, j, k, s}:
        return None
    a_view, a_rows, a_cols = _view(a, [i, k])
    b_view, b_rows, b_cols = _view(b, [k, j])
    pairs = [(outer.stop, a_rows), (inner.stop, a_cols), (inner.stop, b_rows),
             (middle.stop, b_cols)]
    when = {f"{ir.format_expr(x)} == {ir.format_expr(y)}": compare("==", x, y) for x, y in pairs
            if ir.format_expr(x) != ir.format_expr(y)}
    return dataclasses.replace(outer, blas=[ir.Name(out.array.id, type=out.array.type),
                                            a_view, b_view], blas_when=list(when.values()))


def _is_zero(e) -> bool:
    """Whether `e` is the constant 0, maybe converted (`np.float32(0.0)`, a widened 0)."""
    if isinstance(e, ir.Cast) or (isinstance(e, ir.Call) and e.func.startswith("cast:")
                                  and len(e.args) == 1):
        return _is_zero(e.value if isinstance(e, ir.Cast) else e.args[0])
    return isinstance(e, ir.Const) and e.value == 0


def _from_zero_by_one(loop: ir.For) -> bool:
    return (isinstance(loop.start, ir.Const) and loop.start.value == 0
            and isinstance(loop.step, ir.Const) and loop.step.value == 1)


def _plain(e) -> bool:
    """Whether `e` reads nothing but names, constants and array shapes (so it may be read
    again before the nest with the same value)."""
    if isinstance(e, (ir.Name, ir.Const)):
        return True
    if isinstance(e, ir.ArrayAttr):
        return e.attr == "shape"
    if isinstance(e, ir.BinOp):
        return e.op in ("+", "-", "*") and _plain(e.left) and _plain(e.right)
    return False


def _accumulated(stmt, s: str):
    """The product `x * y` of `s = s + x * y` (either order), else None."""
    if not (isinstance(stmt, ir.Assign) and isinstance(stmt.target, ir.Name)
            and stmt.target.id == s and not stmt.atomic):
        return None
    value = stmt.value
    if not (isinstance(value, ir.BinOp) and value.op == "+"):
        return None
    for acc, product in ((value.left, value.right), (value.right, value.left)):
        if isinstance(acc, ir.Name) and acc.id == s and isinstance(product, ir.BinOp) \
                and product.op == "*" and s not in reads_of(product):
            return product
    return None


def _element(e, dtype: str) -> bool:
    """Whether `e` is an element of a 2-D array of `dtype`, indexed by two plain names."""
    return (isinstance(e, ir.Subscript) and isinstance(e.array.type, Array)
            and e.array.type.ndim == 2 and e.array.type.dtype == dtype
            and len(_names(e.indices)) == 2)


def _names(indices) -> list:
    return [x.id for x in indices if isinstance(x, ir.Name)]


def _operands(product: ir.BinOp, dtype: str, i: str, j: str, k: str):
    """(left operand, right operand) of the product: the element read with i and k, then the
    one read with k and j (in either index order each)."""
    x, y = product.left, product.right
    if not (_element(x, dtype) and _element(y, dtype)):
        return None
    for a, b in ((x, y), (y, x)):
        if sorted(_names(a.indices)) == sorted([i, k]) and \
                sorted(_names(b.indices)) == sorted([k, j]) and i != j:
            return a, b
    return None


def _view(element: ir.Subscript, order: list):
    """(the operand as the product reads it: the array, or its transpose where the element is
    read as `[order[1], order[0]]`; its rows; its columns), as IR."""
    array = element.array
    shape = [ir.ArrayAttr(array, "shape", d, type=Scalar("int64")) for d in (0, 1)]
    if _names(element.indices) == order:
        return ir.Name(array.id, type=array.type), shape[0], shape[1]
    view = ir.StridedView(ir.Name(array.id, type=array.type), [const(0), const(0)], [1, 0],
                          [shape[1], shape[0]], [const(1), const(1)], type=array.type)
    return view, shape[1], shape[0]
