"""Loop optimisations of the C++ path: pure passes `ir.Function -> ir.Function`, one per
module, applied by cpp_emit to the function it prints (the IR embedded for the GPU path keeps
the loops as written: jitgpu/loopopt optimises its kernels at the call). Each pass's docstring
says when it is legal; a pass adds alternatives that cpp_emit runs where their run-time
conditions hold, so results stay the interpreter's; under --fastmath, matmul_loops also lets a
matrix product written as loops call the BLAS, which sums in its own order. What a nest's
accesses read they ask of the nest description both back ends share (nest.py: `cpu_nest`,
`address_of`; the GPU path's passes read it through jitgpu/loopopt/view.py), and what its
statements do besides values (can raise, store, keep scalars private) of effects.py, as the
GPU path's passes do. A nest's middle level is a loop whose iterations
typeinfer/independent_loops proves independent (`For.independent`, marked on every outermost
prange here), as the GPU path's levels are. Each nest records the transforms applied to it
(`For.transforms`, as jitgpu's KernelNest.transforms): `unpy show` prints them, and the built
module keeps them for `unpython.explain` (`nest_transforms`).

Which passes run depends on the indices the build checks (`BuildOptions.checks`): under
--unchecked none is checked and none needs proving; by default index_proof proves what it can
and keeps a register-blocked form only where its nest is proved; under --boundscheck every
index is checked as written, so no nest is rewritten."""
from __future__ import annotations

from unpy import ir
from unpy.loopopt.cache_tiles import cache_tiles
from unpy.loopopt.cost import CpuModel
from unpy.loopopt.index_proof import prove_indices
from unpy.loopopt.inline_calls import inline_calls
from unpy.loopopt.interchange import interchange
from unpy.loopopt.matmul_loops import matmul_loops
from unpy.loopopt.register_blocks import register_blocks
from unpy.typeinfer.independent_loops import mark_independent_levels
from unpy.typeinfer.reductions import walk_stmts

# What a build checks: no index, the indices index_proof does not prove (the default), every
# index (but those lower_arrays generates in range). A nest keeps the first alternative form
# a pass gives it: register blocks, then interchange, then cache tiles; none under
# --boundscheck (every index checked as written).
CHECKS = ("none", "unproved", "all")
REWRITES = (register_blocks, interchange, cache_tiles)


def optimise_for_cpu(fn: ir.Function, checks: str = "unproved", fastmath: bool = False,
                     model: CpuModel | None = None, functions: dict | None = None) -> ir.Function:
    """`fn` with the C++ path's loop optimisations of a build that checks `checks`, their
    blocks, strips and tiles as `model` (by default the building machine's) says; with those
    only --fastmath allows (a sum in another order: matmul_loops) where `fastmath`; its calls
    of the module's `functions` (name -> ir.Function) that return an expression inlined."""
    model = model or CpuModel.for_machine()
    if functions and checks != "all":
        fn = inline_calls(fn, functions)
    if fastmath:
        fn = matmul_loops(fn)
    if checks != "all":
        fn = mark_independent_levels(fn)
        for rewrite in REWRITES:
            fn = rewrite(fn, model)
    if checks == "unproved":
        fn = prove_indices(fn)
    return fn


def blocked_nests(functions, checks: str = "unproved", model: CpuModel | None = None) -> int:
    """How many prange nests of `functions` have a register-blocked form (for `unpy build`),
    run where the nest is proved (index_proof)."""
    model = model or CpuModel.for_machine()

    def register_tiles(body):
        return any(isinstance(x, ir.LocalTile) and len(x.shape) == 2 for x in walk_stmts(body))

    def blocked(s):
        return register_tiles(s.blocked) or bool(s.proof and register_tiles(s.proof.nest.blocked))
    return sum(1 for fn in functions
               for s in walk_stmts(optimise_for_cpu(fn, checks, model=model).body)
               if isinstance(s, ir.For) and blocked(s))


def nest_transforms(fn: ir.Function) -> list:
    """The transforms applied to each prange nest of `fn` as optimise_for_cpu left it, in the
    order of its nests (`outermost_pranges`): the nest's own, those of the serial loop around
    it that interchange moved it outward of, and those of its run-time proof's nest."""
    found = []

    def visit(body, around):
        for s in body:
            if isinstance(s, ir.For) and s.parallel:
                proved = s.proof.nest.transforms if s.proof else []
                found.append(around + s.transforms + [f"{t} where proved" for t in proved])
            elif isinstance(s, ir.For):
                visit(s.body, around + s.transforms)
            elif isinstance(s, ir.While):
                visit(s.body, around)
            elif isinstance(s, ir.If):
                visit(s.body, around)
                visit(s.orelse, around)
    visit(fn.body, [])
    return found
