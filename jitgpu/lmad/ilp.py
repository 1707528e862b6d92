"""The ILP heuristic of section 4.3.4, second case.

For n RCSLMADs with common strides whose bases are too far apart for Theorem 2, find a group G'
with the same strides, bases `b' + r_m` and extents `u'_k`, such that every member m is G'
member `r_m` shifted by `t_mk` (equations 21-28):

    0 <= r_m < s_d                                         (29)
    sum_k s_k * t_mk + r_m + b' = b_m                       (30)  (the paper prints b_n)
    u_mk + t_mk <= u'_k                                     (31)
    s_k > s_d - 1 + sum_{p>k} s_p * (u'_p - 1),  k < d      (32)  (inequality 14 for G')
    b_1 - s_1 < b' <= b_1                                   (34)
    minimise sum_k u'_k                                     (33)

Members may use different subsets of the strides (a missing one has extent 1) and different
extents, which the constraints allow as written. The problem is solved in process by HiGHS
through PuLP under a time limit, abandoned past a variable budget, and cached by its normalised
form (strides, base differences, extents), which repeated calls and equal tiles share.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional

from .cslmad import satisfies_restriction
from .layout import PackedLayout

_SOLUTIONS: dict = {}     # normalised problem -> (solution or None, why not)
_MAX_CACHED = 4096


@functools.cache
def quiet_highs():
    """PuLP's in-process HiGHS with its log off from the start (a class made at the first
    ILP: importing PuLP costs 60-130 ms, which a call whose layouts all have closed forms
    need not pay). highspy's `Highs()` prints HiGHS's banner ("Running HiGHS 1.16.0 ...",
    C-level stdout, once per process) from its constructor, before PuLP sets `output_flag`: a
    user's program printed it in the middle of its own output at the first GPU call that
    solved this ILP. Where highspy has no plain solver object to build (`_core._Highs`, the
    class its `Highs` extends), PuLP's own is used."""
    import pulp

    class QuietHiGHS(pulp.HiGHS):
        def createAndConfigureSolver(self, lp):
            import highspy
            plain = getattr(getattr(highspy, "_core", None), "_Highs", None)
            if plain is None:
                return super().createAndConfigureSolver(lp)
            lp.solverModel = plain()
            lp.solverModel.setOptionValue("output_flag", False)
            if self.timeLimit is not None:
                lp.solverModel.setOptionValue("time_limit", float(self.timeLimit))

    return QuietHiGHS


@dataclass(frozen=True)
class IlpOutcome:
    layout: Optional[PackedLayout]
    reason: str = ""      # why there is no layout, in words


def solve_ilp(members: list, max_vars: int = 200, time_limit: float = 0.5) -> IlpOutcome:
    """G' for the members (normalised CSLMADs), or why none was found."""
    strides = tuple(sorted({s for m in members for s, _ in m.dims}, reverse=True))
    if not strides:
        return IlpOutcome(None, "nothing to stretch: no loop moves the address")
    extents = []
    for m in members:
        if len(set(m.strides)) != len(m.strides):
            return IlpOutcome(None, "two loops of one access move the address by the same stride, "
                                    "so it revisits addresses and no RCSLMAD covers it")
        per_stride = dict(m.dims)
        extents.append(tuple(per_stride.get(s, 1) for s in strides))
    # u'_k >= u_mk, and inequality 32 only gets harder as u' grows: test the smallest u'.
    widest = tuple(max(col) for col in zip(*extents))
    if not satisfies_restriction(strides, widest, strides[-1] - 1):
        return IlpOutcome(None, f"strides {list(strides)} are too close for extents "
                                f"{list(widest)}: no G' satisfies inequality 32")
    n, d = len(members), len(strides)
    n_vars = 1 + n + n * d + d
    if n_vars > max_vars:
        return IlpOutcome(None, f"the ILP needs {n_vars} variables, over the budget of {max_vars}")
    b1 = min(m.base for m in members)
    problem = (strides, tuple(sorted((m.base - b1, e) for m, e in zip(members, extents))))
    if problem not in _SOLUTIONS:
        if len(_SOLUTIONS) >= _MAX_CACHED:
            _SOLUTIONS.clear()
        _SOLUTIONS[problem] = _solve(*problem, time_limit=time_limit)
    solution, reason = _SOLUTIONS[problem]
    if solution is None:
        return IlpOutcome(None, reason)
    offset, residues, new_extents = solution
    return IlpOutcome(PackedLayout(b1 + offset, residues, strides, new_extents))


def _solve(strides: tuple, members: tuple, time_limit: float) -> tuple:
    """((b' - b_1, residues, u'), "") or (None, why); bases in `members` are relative to b_1."""
    try:
        import pulp
    except ImportError as e:       # installed without the extra `gpu`
        return None, f"the ILP needs PuLP and HiGHS ({e}; pip install 'unpy[gpu]')"
    s1, sd, d = strides[0], strides[-1], len(strides)
    problem = pulp.LpProblem("g_prime", pulp.LpMinimize)
    shift = problem.add_variable("b", -(s1 - 1), 0, cat="Integer")                     # (34)
    upper = [problem.add_variable(f"u{k}", 1, None, cat="Integer") for k in range(d)]
    problem += pulp.lpSum(upper)                                                  # (33)
    rows = []
    for m, (base, extents) in enumerate(members):
        r = problem.add_variable(f"r{m}", 0, sd - 1, cat="Integer")                    # (29)
        t = [problem.add_variable(f"t{m}_{k}", 0, (base + s1 - 1) // strides[k], cat="Integer")
             for k in range(d)]
        problem += pulp.lpSum(s * tk for s, tk in zip(strides, t)) + r + shift == base   # (30)
        for k in range(d):
            problem += extents[k] + t[k] <= upper[k]                              # (31)
        rows.append((r, t))
    for k in range(d - 1):
        problem += pulp.lpSum(strides[p] * (upper[p] - 1) for p in range(k + 1, d)) \
            <= strides[k] - sd                                                    # (32)
    status = problem.solve(quiet_highs()(msg=False, timeLimit=time_limit))
    if status == pulp.LpStatusInfeasible:
        return None, "the ILP (constraints 29-34) is infeasible: no G' covers the group"
    if any(v.value() is None for v in problem.variables()):
        return None, f"the ILP (constraints 29-34) found no G' within {time_limit} s"
    b = round(shift.value())
    u = tuple(round(v.value()) for v in upper)
    residues = []
    for (base, extents), (r, t) in zip(members, rows):
        rm, tm = round(r.value()), [round(x.value()) for x in t]
        # Trust but verify: the layout is only correct if the integers satisfy 29-31.
        if not (0 <= rm < sd and sum(s * x for s, x in zip(strides, tm)) + rm + b == base
                and all(x >= 0 and e + x <= uk for x, e, uk in zip(tm, extents, u))):
            return None, "the ILP solver returned a point that violates constraints 29-31"
        residues.append(rm)
    if not satisfies_restriction(strides, u, sd - 1):
        return None, "the ILP solver returned a point that violates constraint 32"
    return (b, tuple(residues), u), ""
