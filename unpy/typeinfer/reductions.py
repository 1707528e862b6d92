"""Reductions and shared scalars of `prange` loops (SPEC section 3).

A variable written inside a prange region is private when every iteration assigns it before
reading it. Otherwise it carries a value into the loop: that is allowed only as a reduction
(`x = x + e`, `x = min(x, e)`, ...; `x += e` was already rewritten to this form), with one operator,
and with `x` read nowhere else in the loop. Also numbers the outermost prange nests of @gpu
functions and refuses `return`, and `break` of the prange itself.
"""
from __future__ import annotations

from unpy import ir

REDUCTION_BINOPS = {"+": "+", "-": "+", "*": "*", "&": "&", "|": "|", "^": "^"}


_EXPRESSIONS = (ir.Const, ir.Name, ir.BinOp, ir.UnaryOp, ir.Compare, ir.BoolOp, ir.IfExp,
                ir.Subscript, ir.ArrayAttr, ir.Call, ir.CallCompiled, ir.Cast, ir.NamedExpr,
                ir.AllocArray, ir.Slice, ir.NewAxis, ir.View, ir.Masked, ir.ArrayCall,
                ir.StridedView, ir.Reshape, ir.TupleValue, ir.TupleItem, ir.ListNew, ir.ListItem,
                ir.ListLen, ir.ListAppend, ir.ListPop, ir.ListInsert)
# A For's `blocked` is another form of its own statements (unpy/loopopt): not walked.
_NOT_WALKED = ("type", "loc", "reductions", "blocked")
_LIST, _DICT, _LEAF = "list", "dict", "leaf"
_SHAPES = {}        # a class -> _LIST, _DICT, _LEAF or (is an expression, fields walked)


def _shape(cls):
    if issubclass(cls, list):
        found = _LIST
    elif issubclass(cls, (str, int, float, bool, tuple)) or cls is type(None):
        found = _LEAF
    elif issubclass(cls, dict):
        found = _DICT
    elif not hasattr(cls, "__dataclass_fields__"):
        found = _LEAF
    else:
        found = (issubclass(cls, _EXPRESSIONS),
                 tuple(reversed([f for f in cls.__dataclass_fields__ if f not in _NOT_WALKED])))
    _SHAPES[cls] = found
    return found


def walk_exprs(node):
    """Every expression node below `node` (statements and expressions), depth first.
    A stack, not recursive generators: the compiler walks IR trees millions of times."""
    stack = [node]
    pop, push = stack.pop, stack.append
    while stack:
        node = pop()
        shape = _SHAPES.get(type(node)) or _shape(type(node))
        if shape is _LEAF:
            continue
        if shape is _LIST:
            stack.extend(reversed(node))
        elif shape is _DICT:
            stack.extend(reversed(list(node.values())))
        else:
            is_expression, fields = shape
            if is_expression:
                yield node
            for name in fields:
                push(getattr(node, name))


def walk_stmts(body):
    for s in body:
        yield s
        if isinstance(s, (ir.For, ir.While)):
            yield from walk_stmts(s.body)
        elif isinstance(s, ir.If):
            yield from walk_stmts(s.body)
            yield from walk_stmts(s.orelse)


def escapes(body, kinds=(ir.Break, ir.Continue)) -> bool:
    """Whether `body` has a statement of `kinds` (break, continue) of its own, not of a loop
    inside it."""
    for s in body:
        if isinstance(s, kinds):
            return True
        if isinstance(s, ir.If) and (escapes(s.body, kinds) or escapes(s.orelse, kinds)):
            return True
    return False


def assigned_names(body):
    """Names the statements assign (variables, loop variables and the locals of `NamedExpr`),
    in order, each once."""
    names = []
    for s in walk_stmts(body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            names.append(s.target.id)
        elif isinstance(s, ir.For):
            names.append(s.var)
    names += [e.target.id for e in walk_exprs(body) if isinstance(e, ir.NamedExpr)]
    return list(dict.fromkeys(names))


def outermost_pranges(body):
    """The prange loops of a body that no other prange contains: the nests of a function."""
    for s in body:
        if isinstance(s, ir.For) and s.parallel:
            yield s
        elif isinstance(s, (ir.For, ir.While)):
            yield from outermost_pranges(s.body)
        elif isinstance(s, ir.If):
            yield from outermost_pranges(s.body)
            yield from outermost_pranges(s.orelse)


def reads_of(node):
    return [e.id for e in walk_exprs(node) if isinstance(e, ir.Name)]


def _strip_cast(e):
    return e.value if isinstance(e, ir.Cast) else e


def reduction_form(stmt: ir.Assign):
    """(var, op, other operand) if `stmt` is `x = x op e` / `x = e op x` / `x = min(x, e)`."""
    if not isinstance(stmt, ir.Assign) or not isinstance(stmt.target, ir.Name):
        return None
    x = stmt.target.id
    value = _strip_cast(stmt.value)
    is_x = lambda e: isinstance(_strip_cast(e), ir.Name) and _strip_cast(e).id == x
    if isinstance(value, ir.BinOp) and value.op in REDUCTION_BINOPS:
        if is_x(value.left):
            return x, REDUCTION_BINOPS[value.op], value.right
        if is_x(value.right) and value.op != "-":
            return x, REDUCTION_BINOPS[value.op], value.left
    if isinstance(value, ir.Call) and value.func in ("min", "max") and len(value.args) == 2:
        a, b = value.args
        if is_x(a):
            return x, value.func, b
        if is_x(b):
            return x, value.func, a
    return None


class UpwardExposed:
    """Names read in a loop body before every path assigned them (they carry a value in)."""

    def __init__(self):
        self.exposed = {}       # name -> first exposing expression

    def block(self, body, assigned):
        assigned = set(assigned)
        for s in body:
            assigned = self.stmt(s, assigned)
        return assigned

    def use(self, node, assigned):
        for e in walk_exprs(node):
            if isinstance(e, ir.Name) and e.id not in assigned:
                self.exposed.setdefault(e.id, e)

    def stmt(self, s, assigned):
        if isinstance(s, ir.Assign):
            self.use(s.value, assigned)
            if isinstance(s.target, ir.Name):
                return assigned | {s.target.id}
            self.use(s.target, assigned)
            return assigned
        if isinstance(s, ir.For):
            self.use([s.start, s.stop, s.step], assigned)
            self.block(s.body, assigned | {s.var})
            return assigned         # the body may run zero times
        if isinstance(s, ir.While):
            self.use(s.test, assigned)
            self.block(s.body, assigned)
            return assigned
        if isinstance(s, ir.If):
            self.use(s.test, assigned)
            body, orelse = self.block(s.body, assigned), self.block(s.orelse, assigned)
            # A branch that raises does not go on: the statements after see the other's.
            if raises(s.body):
                return orelse
            if raises(s.orelse):
                return body
            return body & orelse
        if isinstance(s, (ir.Return, ir.ExprStmt)):
            self.use(s.value, assigned)
        return assigned


def raises(body) -> bool:
    """Whether `body` always ends in a `raise` (the checks lower_arrays makes)."""
    return bool(body) and isinstance(body[-1], ir.Raise)


def check_prange(loop: ir.For, errors):
    """Fill `loop.reductions`; raise for any other write to a shared scalar."""
    writes = {}
    for s in walk_stmts(loop.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            writes.setdefault(s.target.id, []).append(s)
        elif isinstance(s, ir.For):
            writes.setdefault(s.var, [])
        elif isinstance(s, ir.Return):
            raise errors.error("'return' inside a prange loop is not allowed: iterations run in "
                               "parallel", s.loc)
    _check_break(loop.body, errors)
    exposed = UpwardExposed()
    exposed.block(loop.body, {loop.var})
    reductions = []
    for name, stmts in writes.items():
        if name not in exposed.exposed:
            continue            # private: assigned before read in every iteration
        forms = [reduction_form(s) for s in stmts]
        ops = {f[1] for f in forms if f}
        bad = next((s for s, f in zip(stmts, forms) if f is None), None)
        if bad is None and len(ops) == 1:
            op = ops.pop()
            other_reads = sum(reads_of(f[2]).count(name) for f in forms)
            total_reads = sum(1 for s in walk_stmts(loop.body) for r in _stmt_reads(s)
                              if r == name)
            if other_reads == 0 and total_reads == len(stmts):
                reductions.append(ir.Reduction(name, op))
                continue
        where = bad or (stmts[0] if stmts else loop)
        raise errors.error(
            f"'{name}' is shared by all iterations of this prange (it holds a value from "
            f"before the loop, read at line {exposed.exposed[name].loc[0]}), and iterations "
            "run in parallel. Only reductions are allowed: x += e, x -= e, x *= e, "
            "x = x + e, x = min(x, e), x = max(x, e), x |= e, x &= e, x ^= e, with x read "
            "nowhere else in the loop; otherwise assign it in every iteration before reading it",
            where.loc)
    loop.reductions = reductions


def own_expressions(s) -> list:
    """The expressions of statement `s` itself (not of the statements inside it): a loop's
    bounds, a test, an assignment's target and value, a returned or raised value."""
    if isinstance(s, ir.For):
        return [s.start, s.stop, s.step]
    if isinstance(s, (ir.While, ir.If)):
        return [s.test]
    if isinstance(s, (ir.Assign, ir.AugAssign)):
        return [s.target, s.value]
    return [x for x in [getattr(s, "value", None), *getattr(s, "values", [])] if x is not None]


def _stmt_reads(s):
    """Names a single statement reads (not its nested body)."""
    if isinstance(s, ir.Assign):
        reads = reads_of(s.value)
        if isinstance(s.target, ir.Subscript):
            reads += reads_of(s.target)
        return reads
    if isinstance(s, ir.For):
        return reads_of([s.start, s.stop, s.step])
    if isinstance(s, (ir.While, ir.If)):
        return reads_of(s.test)
    if isinstance(s, (ir.Return, ir.ExprStmt)):
        return reads_of(s.value)
    return []


def _check_break(body, errors):
    """`break` that would leave the prange itself (not an inner loop)."""
    for s in body:
        if isinstance(s, ir.Break):
            raise errors.error("'break' out of a prange loop is not allowed: iterations run in "
                               "parallel", s.loc)
        if isinstance(s, ir.If):
            _check_break(s.body, errors)
            _check_break(s.orelse, errors)


def check_private_not_read_after(loop: ir.For, after: list, errors):
    """A variable private to the iterations of `loop` must not be read after it: Python would
    see the last iteration's value, which parallel iterations do not keep. (The loop variable
    itself gets its last value back; see cpp_emit.) `after`: the statements that may run next,
    in order (enclosing loop bodies included, as their next iteration may come next)."""
    reduced = {r.var for r in loop.reductions}
    private = {}
    for s in walk_stmts(loop.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name):
            private.setdefault(s.target.id, s)
        elif isinstance(s, ir.For):
            private.setdefault(s.var, s)
    exposed = UpwardExposed()
    exposed.block(after, set())
    for name, where in private.items():
        if name in reduced or name not in exposed.exposed:
            continue
        raise errors.error(
            f"'{name}' is assigned in the iterations of the prange at line {loop.loc[0]} "
            f"(line {where.loc[0]}) and read here after the loop; iterations run in parallel, "
            "so the value of the last one is not kept. Compute it after the loop, or store it "
            "in an array", exposed.exposed[name].loc)


def check_function(fn: ir.Function, errors):
    """Check every outermost prange; number the nests of @gpu functions."""
    nest_count = 0

    def visit(body, after):
        nonlocal nest_count
        for k, s in enumerate(body):
            rest = body[k + 1:] + after
            if isinstance(s, ir.For) and s.parallel:
                check_prange(s, errors)
                check_private_not_read_after(s, rest, errors)
                if fn.gpu:
                    s.nest_id = nest_count
                    nest_count += 1
            elif isinstance(s, (ir.For, ir.While)):
                visit(s.body, s.body + rest)
            elif isinstance(s, ir.If):
                visit(s.body, rest)
                visit(s.orelse, rest)

    visit(fn.body, [])
    return nest_count
