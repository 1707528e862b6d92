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
also raises nothing the loops would.

A centred product, covariance as it is written, takes the BLAS too:

    for i in prange(m):                      P = (x.T - mu[:, None]) @ (x - mu), where
        for j in range(i, m):    # or 0          unpy::blas_centred_matmul takes it (as above,
            s = 0.0                              and the vectors long enough), each centred
            for k in range(n):                   operand copied once (C-ordered, one copy where
                s += (x[k, i] - mu[i]) * (x[k, j] - mu[j])     both are the same), P a new
            cov[i, j] = s / (n - 1)              array; then the nest's loops with `s = P[i, j]`
            cov[j, i] = cov[i, j]                for the sum, its other statements as written

Each factor is an operand's element or that minus an element of a vector of the same dtype
indexed by the operand's other loop variable (i for the left, j for the right: `mu[k]` or
`mu[j]` in the left factor stays loops); the middle loop may start at i. After the sum the
nest may assign scalars and elements of arrays other than those the product reads, from any
expressions without calls of compiled functions and without `k`: those statements run as
written, in the same iterations, so the dtype promotions, the elements written (a triangle,
a mirror only where the source has one) and the errors are the loops'. The product reads all
its elements before them, so the arrays they write must overlap none it reads (checked at run
time, with `blas_when`); its copies subtract in the dtype, as the loops do."""
from __future__ import annotations

import dataclasses

from unpy import ir
from unpy.ir import Array, Scalar
from unpy.loopopt.rewrite import const, fresh
from unpy.typeinfer.build_ir import compare
from unpy.typeinfer.reductions import reads_of, walk_exprs

DTYPES = ("float32", "float64")


def matmul_loops(fn: ir.Function) -> ir.Function:
    """`fn` with `blas` and `blas_when` set on each outermost prange nest of the forms above
    (and `blas_centres`, `blas_then` on a centred one, whose product is a new local)."""
    taken = set(fn.locals) | {p.name for p in fn.params}
    new_locals = dict(fn.locals)

    def visit(body):
        out = []
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                found = _with_blas(s, fn, taken, new_locals)
                out.append(dataclasses.replace(found, transforms=found.transforms + [
                    f"matmul_loops({ir.format_blas(found)} by a BLAS)"]) if found else s)
            elif isinstance(s, (ir.For, ir.While)):
                out.append(dataclasses.replace(s, body=visit(s.body)))
            elif isinstance(s, ir.If):
                out.append(dataclasses.replace(s, body=visit(s.body), orelse=visit(s.orelse)))
            else:
                out.append(s)
        return out
    body = visit(fn.body)
    return dataclasses.replace(fn, body=body, locals=new_locals)


def _with_blas(outer: ir.For, fn: ir.Function, taken: set, new_locals: dict):
    """`outer` with its BLAS call, or None where it is not a matrix product of the forms."""
    if outer.blas or outer.reductions or len(outer.body) != 1:
        return None
    middle = outer.body[0]
    if not isinstance(middle, ir.For) or middle.reductions or len(middle.body) < 3:
        return None
    init, inner, *finals = middle.body
    if not (isinstance(inner, ir.For) and not inner.parallel and len(inner.body) == 1):
        return None
    i, j, k = outer.var, middle.var, inner.var
    if not (_from_zero_by_one(outer) and _from_zero_by_one(inner) and _by_one(middle)
            and (_is_const(middle.start, 0) or _is_name(middle.start, i))):
        return None
    if not (isinstance(init, ir.Assign) and isinstance(init.target, ir.Name)
            and _is_zero(init.value)):
        return None
    s = init.target.id
    dtype = getattr(fn.locals.get(s), "dtype", None)
    if dtype not in DTYPES:
        return None
    product = _accumulated(inner.body[0], s)
    if product is None:
        return None
    factors = _factors(product, dtype, i, j, k)
    if factors is None:
        return None
    (a, a_centre), (b, b_centre) = factors
    read = {a.array.id, b.array.id} | {c.array.id for c in (a_centre, b_centre) if c}
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
    out = _stored(finals, s, i, j, dtype)
    if out is not None and out.array.id not in read and not (a_centre or b_centre) \
            and _is_const(middle.start, 0):
        return dataclasses.replace(outer, blas=[ir.Name(out.array.id, type=out.array.type),
                                                a_view, b_view], blas_when=list(when.values()))
    if not _after_the_sum(finals, read | set(reads_of(bounds)) | {i, j, k}, k, fn):
        return None
    # Else the product into a new local, then the nest reading its sums from it.
    kind = Array(dtype, 2)
    p = fresh("unpy_product", taken)
    new_locals[p] = kind
    index = [ir.Name(x, type=fn.locals.get(x, Scalar("int64"))) for x in (i, j)]
    from_product = ir.Assign(ir.Name(s, type=Scalar(dtype)),
                             ir.Subscript(ir.Name(p, type=kind), index, type=Scalar(dtype),
                                          in_range=[0, 1]), loc=init.loc)
    then = dataclasses.replace(outer, body=[dataclasses.replace(
        middle, body=[from_product] + finals)], nest_id=None, fused=[], blocked=[],
        disjoint=[], proof=None)
    return dataclasses.replace(outer, blas=[ir.Name(p, type=kind), a_view, b_view],
                               blas_when=list(when.values()),
                               blas_centres=[a_centre, b_centre], blas_then=[then])


def _is_zero(e) -> bool:
    """Whether `e` is the constant 0, maybe converted (`np.float32(0.0)`, a widened 0)."""
    if isinstance(e, ir.Cast) or (isinstance(e, ir.Call) and e.func.startswith("cast:")
                                  and len(e.args) == 1):
        return _is_zero(e.value if isinstance(e, ir.Cast) else e.args[0])
    return isinstance(e, ir.Const) and e.value == 0


def _from_zero_by_one(loop: ir.For) -> bool:
    return _is_const(loop.start, 0) and _by_one(loop)


def _by_one(loop: ir.For) -> bool:
    return _is_const(loop.step, 1)


def _is_const(e, value) -> bool:
    return isinstance(e, ir.Const) and e.value == value


def _is_name(e, name: str) -> bool:
    return isinstance(e, ir.Name) and e.id == name


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


def _factors(product: ir.BinOp, dtype: str, i: str, j: str, k: str):
    """((left operand, its centre), (right operand, its centre)) of the product: the element
    read with i and k, then the one read with k and j (in either index order each), each
    maybe less an element of a vector read with its own i (j): that element, else None."""
    x, y = _centred(product.left, dtype), _centred(product.right, dtype)
    if x is None or y is None or i == j:
        return None
    for (a, a_centre), (b, b_centre) in ((x, y), (y, x)):
        if sorted(_names(a.indices)) == sorted([i, k]) and \
                sorted(_names(b.indices)) == sorted([k, j]) and \
                _indexed_by(a_centre, i) and _indexed_by(b_centre, j):
            return (a, a_centre), (b, b_centre)
    return None


def _centred(e, dtype: str):
    """(element, None) for an element of a 2-D array of `dtype`; (element, centre) for
    `element - centre`, the centre an element of a 1-D array of `dtype`; else None."""
    if _element(e, dtype):
        return e, None
    if not (isinstance(e, ir.BinOp) and e.op == "-" and _element(e.left, dtype)
            and getattr(e.type, "dtype", None) == dtype):
        return None
    centre = e.right
    if not (isinstance(centre, ir.Subscript) and isinstance(centre.array.type, Array)
            and centre.array.type.ndim == 1 and centre.array.type.dtype == dtype
            and len(_names(centre.indices)) == 1):
        return None
    return e.left, centre


def _indexed_by(centre, var: str) -> bool:
    return centre is None or _names(centre.indices) == [var]


def _stored(finals: list, s: str, i: str, j: str, dtype: str):
    """The element `c[i, j]` of `c[i, j] = s`, where that is all the nest does after the sum;
    else None."""
    if len(finals) != 1:
        return None
    store = finals[0]
    if not (isinstance(store, ir.Assign) and not store.atomic and _element(store.target, dtype)
            and _names(store.target.indices) == [i, j] and _is_name(store.value, s)):
        return None
    return store.target


def _after_the_sum(finals: list, fixed: set, k: str, fn: ir.Function) -> bool:
    """Whether the statements after the sum may run after the whole product: assignments of
    scalars and of elements of arrays, none of a name in `fixed` (the product's arrays, the
    loop variables, the names of the bounds) nor of an element of the product's arrays, none
    reading `k` (which the loops leave at its last value, the BLAS unset) or calling a
    compiled function (which might write the product's arrays)."""
    for stmt in finals:
        if not isinstance(stmt, ir.Assign) or stmt.atomic:
            return False
        target = stmt.target
        if isinstance(target, ir.Subscript):
            if target.array.id in fixed:
                return False
        elif not (isinstance(target, ir.Name) and target.id not in fixed
                  and isinstance(fn.locals.get(target.id), Scalar)):
            return False
    if k in reads_of(finals):
        return False
    return not any(isinstance(e, (ir.CallCompiled, ir.AllocArray, ir.NamedExpr))
                   for e in walk_exprs(finals))


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
