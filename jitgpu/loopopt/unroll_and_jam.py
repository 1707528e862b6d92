"""unroll_and_jam: register blocking of an NDRange level (the paper's section 3.4)."""
from __future__ import annotations

import dataclasses

from jitgpu.bind import KernelNest
from jitgpu.loopopt.cost import GpuModel
from jitgpu.loopopt.nodes import CopyValid, UnrolledLevel
from jitgpu.loopopt.rewrite import AccessCopies
from jitgpu.loopopt.view import loop_nest
from unpy import ir
from unpy.ir import Scalar
from unpy.loopopt.register_tiles import Refusal
from unpy.loopopt.rewrite import fresh, rename, transform
from unpy.loopopt.unroll_and_jam import choose_jam


def unroll_and_jam(kernel: KernelNest, model: GpuModel = GpuModel(), level: int | None = None,
                   factor: int | None = None, strided: bool = False) -> KernelNest:
    """Each work-item computes `factor` consecutive iterations of NDRange level `level` (the
    level's NDRange shrinks to ceil(n / factor)); the copies of the body are jammed: an inner
    sequential loop whose bounds are the same for every copy runs once, with each copy's
    statements in its body, so that a load that does not depend on the level's variable is
    made once per iteration for all copies (after `load_elimination`). Private scalars are
    renamed per copy; a copy beyond the iteration space or outside a triangular guard
    recomputes the first real copy's iteration (its loads stay in range), and its stores and
    reduction updates are guarded (`CopyValid`): any trip count, not only multiples. The
    level, factor and jammed loops are the choice both back ends make alike
    (unpy/loopopt/unroll_and_jam.py's choose_jam), with the OpenCL path's cost model
    (jitgpu/loopopt/cost.py's GpuModel); this is its lowering.

    Legal as choose_jam says: the level is a prange not unrolled yet; the body has no
    break/continue of its own; a jammed loop's bounds read neither the level's variable nor
    a variable the body assigns, and it has no while, break or continue inside; no loop
    variable is both jammed and copied. A reduction variable is shared by the copies (each
    update guarded), its combination left to the epilogue.

    `strided`: the copies are spaced by the level's local size (`UnrolledLevel.strided`), the
    layout of a register tile's coalesced level. A named `level` may be jammed in a nest that
    has another unrolled level (register_tiles jams both): every store is then already guarded
    by the earlier jam, and its `CopyValid` becomes the tuple of both levels' copies.

    `level` and `factor` None: the model's (KernelModel), the level with the most loads shared
    by its copies inside jammed loops and the largest of its jam_factors within its
    jam_register_budget that leaves at least its fill_items work-items; unchanged where
    choose_jam refuses."""
    jam = choose_jam(loop_nest(kernel), model.of(kernel), level, factor)
    if isinstance(jam, Refusal):
        return kernel
    renamed = [p for p in dict(kernel.privates) if p not in jam.jammed]
    return _Jam(kernel, jam.level, jam.factor, jam.jammed, renamed, strided).run()


class _Jam:
    def __init__(self, kernel, level, factor, jammed, renamed, strided):
        self.kernel, self.k, self.factor, self.strided = kernel, level, factor, strided
        # The levels unrolled before this one: their CopyValid guards gain this level's copy.
        self.earlier = [k for k, lv in enumerate(kernel.levels) if isinstance(lv, UnrolledLevel)]
        self.var = kernel.levels[level].var
        self.jammed = jammed
        self.privates = set(dict(kernel.privates))
        self.reduced = {v for v, _, _ in kernel.reductions}
        self.accesses = AccessCopies(kernel)
        taken = ({n for n, _ in kernel.types} | self.privates | {p.name for p in kernel.free}
                 | {lv.var for lv in kernel.loops})
        self.copy_vars = [fresh(f"{self.var}__{u}", taken) for u in range(1, factor)]
        self.names = [{}] + [
            dict({self.var: self.copy_vars[u - 1]},
                 **{p: fresh(f"{p}__{u}", taken) for p in renamed})
            for u in range(1, factor)]
        self.depends_on = set(renamed) | {self.var}

    def run(self) -> KernelNest:
        kn = self.kernel
        body = self.jam(list(kn.body))
        levels = list(kn.levels)
        old = levels[self.k]
        levels[self.k] = UnrolledLevel(old.var, old.guard, tuple(self.copy_vars), self.strided)
        ndim = len(levels)
        d = ndim - 1 - self.k
        blocks = -(-kn.longs[f"unpy_n{self.k}"] // self.factor)
        global_size = list(kn.global_size)
        global_size[d] = max(1, -(-blocks // kn.local_size[d])) * kn.local_size[d]
        types = dict(kn.types)
        privates = list(kn.privates)
        loops = list(kn.loops)
        by_var = {lv.var: lv for lv in kn.loops}
        for names in self.names[1:]:
            for old_name, new_name in names.items():
                types[new_name] = types.get(old_name, Scalar("int64"))
                if old_name == self.var:
                    continue
                privates.append((new_name, dict(kn.privates)[old_name]))
                if old_name in by_var:
                    loops.append(dataclasses.replace(by_var[old_name], var=new_name))
        return kn.replace(
            levels=tuple(levels), global_size=tuple(global_size), body=tuple(body),
            accesses=kn.accesses + tuple(self.accesses.added), privates=tuple(privates),
            types=tuple(types.items()), loops=tuple(loops),
            transforms=kn.transforms + (
                f"unroll_and_jam({self.var}, {self.factor}{', strided' if self.strided else ''})",))

    def jam(self, stmts):
        out = []
        for s in stmts:
            if isinstance(s, ir.For) and s.var in self.jammed:
                out.append(dataclasses.replace(s, body=self.jam(s.body)))
            else:
                for u in range(self.factor):
                    out.append(self.copy(s, u))
        return out

    def copy(self, s, u):
        names = self.names[u]
        access = self.accesses.renamer(names, self.depends_on) if u else (lambda n: n)

        def guard(n):
            n = access(n)
            if self.earlier:
                return self.merged(n, u) if isinstance(n, CopyValid) else n
            if isinstance(n, ir.Assign) and (isinstance(n.target, ir.Subscript) or (
                    isinstance(n.target, ir.Name) and n.target.id in self.reduced)):
                return ir.If(CopyValid(u), [n], [], n.loc)
            return n
        return transform(rename(s, names), guard)

    def merged(self, valid, u):
        """The guard of an earlier jam's copy, for this level's copy `u` too: one copy per
        unrolled level, in level order."""
        earlier = valid.copy if isinstance(valid.copy, tuple) else (valid.copy,)
        copies = dict(zip(self.earlier, earlier))
        copies[self.k] = u
        return dataclasses.replace(valid, copy=tuple(copies[k] for k in sorted(copies)))
