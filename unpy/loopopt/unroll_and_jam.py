"""unroll_and_jam: which parallel level of a loop nest a work-item or strip computes several
iterations of (its copies), how many, and which inner loops the copies run once between them
(jammed), for both back ends (issue 22). The choice is made here, on the shared LoopNest
(nest.py), with the target's cost model; each back end lowers it its own way: the OpenCL
path's jitgpu/loopopt/unroll_and_jam (the body's copies renamed per copy, out-of-range copies
recomputing copy 0, their stores guarded), the C++ path's interchange strips (the level
strip-mined, the jammed loop outside the strip, the copies a `simd` loop over the strip, the
scalars each copy keeps expanded into tiles)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from unpy.loopopt.nest import LoopNest
from unpy.loopopt.register_tiles import Refusal
from unpy.loopopt.reuse import jammed_loops
from unpy.typeinfer.reductions import escapes


@dataclass(frozen=True)
class Jam:
    """`factor` copies of level `level` (its variable `var`), the loops of variables `jammed`
    run once between them."""
    level: int
    var: str
    factor: int
    jammed: frozenset

    def __str__(self):
        return f"{self.var} by {self.factor}, jamming {', '.join(sorted(self.jammed)) or 'no loop'}"


class JamModel(Protocol):
    """A target's cost model of unroll-and-jam (unpy/loopopt/cost.py's CpuModel,
    jitgpu/loopopt/cost.py's GpuModel)."""

    def jam_level(self, nest: LoopNest) -> int | None:
        """The level worth unrolling on this target, or None."""

    def jam_factor(self, nest: LoopNest, level: int, jammed: frozenset) -> int:
        """The copies of level `level`, the loops `jammed` run once between them."""


def choose_jam(nest: LoopNest, model: JamModel, level: int | None = None,
               factor: int | None = None) -> Jam | Refusal:
    """The unroll-and-jam of `nest` under `model`: level `level` (else the model's) by
    `factor` (else the model's), jamming the loops that reuse.jammed_loops finds.

    Legal when the level is a prange (its iterations are independent, so the copies'
    statements may interleave) not unrolled yet (nor, where the model picks the level, any
    other); the body has no break/continue of its own (it would leave every copy); a jammed
    loop's bounds read neither the level's variable nor a variable the body assigns, and it
    has no while, break or continue inside (else it is not jammed but run once per copy); no
    loop variable is both jammed and copied. Refused otherwise, where the model finds no level
    worth it, or where the factor is below 2."""
    unrolled = [bool(lv.copies) for lv in nest.levels]
    if any(unrolled) if level is None else unrolled[level]:
        return Refusal("the level is unrolled already")
    body = list(nest.body)
    if escapes(body):
        return Refusal("the body leaves its loop (break or continue)")
    if level is None:
        level = model.jam_level(nest)
        if level is None:
            return Refusal("no level's copies would share a load or walk a unit stride")
    var = nest.levels[level].var
    jammed = jammed_loops(body, var, set(nest.privates))
    if jammed is None:
        return Refusal(f"a loop would run both once for all copies of {var} and per copy")
    jammed = frozenset(jammed)
    if factor is None:
        factor = model.jam_factor(nest, level, jammed)
    if factor < 2:
        return Refusal(f"the registers and the device's fill allow {factor} copy of {var}")
    return Jam(level, var, factor, jammed)
