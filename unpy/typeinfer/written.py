"""Which parameters a module's functions may write, and which their results may be: the
glue checks written arrays are writeable and gives written lists back (unpy/cpp_emit/module.py),
and lists.copies_checked tells where compiled code's copy of a list is Python's list."""
from __future__ import annotations

from unpy import ir
from unpy.ir import Array
from unpy.typeinfer.reductions import walk_exprs, walk_stmts


def written_params(functions) -> dict:
    """Function name -> names of array and list parameters it may write (a list: store into,
    append to, pop from, insert into): directly, through a local
    variable that may be the same array or a view of it (`b = a`, `b = a[1:]`, `b = a if c
    else d`, `b = f(a)` where f may return its argument or a view of it, `m, b = g(a)`), or
    through calls. A result that is a new array (`np.abs(a) + 1`) is not the argument: the
    interpreter writes it without touching a read-only argument, and so does the compiled code."""
    by_name = {f.name: f for f in functions}
    returned = returned_params(functions)
    aliases = {f.name: array_aliases(f, returned) for f in functions}
    params = {f.name: {p.name for p in f.params if isinstance(p.type, (Array, ir.ListType))}
              for f in functions}

    def may_be(f, names):
        return set().union(*(aliases[f.name].get(n, {n}) for n in names)) & params[f.name]
    # The stores of each function's own body, once; then what its calls write, until no
    # function gains a parameter.
    written = {f.name: may_be(f, [s.target.array.id for s in walk_stmts(f.body)
                                  if isinstance(s, ir.Assign)
                                  and isinstance(s.target, ir.Subscript)] +
                              [list_root(s.target) for s in walk_stmts(f.body)
                               if isinstance(s, ir.Assign) and isinstance(s.target, ir.ListItem)] +
                              [list_root(e.list) for e in walk_exprs(f.body)
                               if isinstance(e, (ir.ListAppend, ir.ListPop, ir.ListInsert))])
               for f in functions}
    changed = True
    while changed:
        changed = False
        for f in functions:
            found = set()
            for e in walk_exprs(f.body):
                if isinstance(e, ir.CallCompiled):
                    callee = by_name[e.func]
                    for arg, p in zip(e.args, callee.params):
                        if p.name in written[callee.name]:
                            found |= may_be(f, _may_be(arg, returned))
            if not found <= written[f.name]:
                written[f.name] |= found
                changed = True
    return written


def list_root(e) -> str:
    """The list variable at the bottom of `m[i][j]`."""
    while isinstance(e, ir.ListItem):
        e = e.list
    return e.id


def returned_params(functions) -> dict:
    """Function name -> positions of its array parameters whose array (or a view of it) its
    result may be, or hold where the result is a tuple."""
    returned = {f.name: set() for f in functions}
    changed = True
    while changed:
        changed = False
        for f in functions:
            aliases = array_aliases(f, returned)
            names = set()
            for s in walk_stmts(f.body):
                if isinstance(s, ir.Return) and s.value is not None:
                    for name in _may_be(s.value, returned):
                        names |= aliases.get(name, {name})
            found = {k for k, p in enumerate(f.params) if p.name in names}
            if not found <= returned[f.name]:
                returned[f.name] |= found
                changed = True
    return returned


def array_aliases(fn: ir.Function, returned: dict) -> dict:
    """Array (or tuple) variable -> the variables (itself included) whose array it may be or
    view; `returned`: `returned_params`."""
    aliases = {}
    for s in walk_stmts(fn.body):
        if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name) and \
                isinstance(s.value.type, (Array, ir.TupleType)):
            aliases.setdefault(s.target.id, {s.target.id}).update(_may_be(s.value, returned))
    changed = True
    while changed:
        changed = False
        for name, others in aliases.items():
            closure = set().union(*(aliases.get(o, {o}) for o in others))
            if not closure <= others:
                others |= closure
                changed = True
    return aliases


def _may_be(e, returned: dict) -> set:
    """The variables whose array an array- or tuple-valued expression may be or view (not a
    copy of); `returned`: `returned_params`."""
    if isinstance(e, ir.Name):
        return {e.id}
    if isinstance(e, ir.IfExp):
        return _may_be(e.body, returned) | _may_be(e.orelse, returned)
    if isinstance(e, (ir.View, ir.StridedView, ir.Reshape, ir.Masked)):
        return _may_be(e.array, returned)
    if isinstance(e, ir.TupleValue):
        return set().union(*(_may_be(item, returned) for item in e.items))
    if isinstance(e, ir.TupleItem):       # (any item of the tuple: not told apart)
        return _may_be(e.value, returned)
    if isinstance(e, ir.ListItem):        # a row of a list of lists: the list's
        return {list_root(e)}
    if isinstance(e, ir.CallCompiled):    # the arguments it may return
        positions = returned.get(e.func, range(len(e.args)))
        return set().union(*(_may_be(e.args[k], returned) for k in positions))
    return set()


def lists_bound_again(fn: ir.Function) -> set:
    """The list parameters a function binds to another list (in a loop or a branch: at its top
    level a new variable takes the name, typeinfer.lists): passed by value, the caller's list
    left as it is (lists.copies_checked: the function changes none of them)."""
    lists = {p.name for p in fn.params if isinstance(p.type, ir.ListType)}
    if not lists:
        return set()
    return {s.target.id for s in walk_stmts(fn.body)
            if isinstance(s, ir.Assign) and isinstance(s.target, ir.Name)
            and s.target.id in lists}
