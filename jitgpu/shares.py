"""How much of the outer loop each participant of a split nest runs (SPEC section 6).

The first split comes from a transfer-aware estimate, SKMD's model simplified (Lee et al.,
section III-C): a participant given a share x of the outer loop takes `fixed + x * whole`
seconds, `fixed` for what it pays whatever its share (inputs every part needs, the launch) and
`whole` for the share's own transfers and work at the participant's throughput. The balanced
shares finish every participant together; a participant whose share would be too small to pay
its fixed cost is left out, and when the best single participant is estimated faster than the
split, it runs alone.

After every call the same model is fitted to the measured times (`measured_costs`): from one
measured share, its rate (the fixed-point step of Huchant et al., section 5: `share_i ∝ 1 /
time per iteration`); from two, the line through them, which also moves where a fixed cost
dominates and the rate step hardly moves (so one disturbed call could hold two identical GPUs
at 0.73 / 0.27). The fastest of a participant's calls at one share counts (a busy
spell is not learnt), and shares are cut at multiples of GRAIN of the loop, so that small
changes keep the parts and everything prepared for them; they move only when the model promises
MIN_GAIN of the call and the gain wins back the new preparation within PAYBACK_CALLS.
A `Balance` remembers all this per (nest, shapes, participants), so repeated calls converge:
the first run of a split's device parts is not learnt from (kernels compiled at launch, fresh
device buffers), the second moves the shares, the third runs them. Unless UNPY_FORCE_GPU=1, a
split the model does not show clearly beating every participant alone is compared with calls
of the fastest one alone (the one-device path), a choice between the two ways by the rules of
jitgpu/choice.py (TRIAL_RULES: the split's own calls are its evidence), and the faster way is
kept.
Such a decision, unless the split is over twice as slow, waits for a second call at the same
shares (the faster of the two counts), and settled shares move only when two calls in a row
propose it, so that one spell of a shared host does not decide.

Everything here but the store of balances is a pure function of numbers.
"""
from __future__ import annotations

import collections
import threading
from dataclasses import dataclass, field
from typing import Optional

from jitgpu.choice import Choice, Rules

MIN_SHARE = 0.02        # a participant given less than this is left out
GRAIN = 50              # shares are whole multiples of 1 / GRAIN of the loop (one = MIN_SHARE)
MIN_GAIN = 0.03         # shares move only for a call this much faster, by the measured model
SPLIT_MARGIN = 0.95     # a split estimated at under 95 % of the best single one pays, by
                        # the estimate
TRY_FACTOR = 2.0        # a split estimated within 2x of the best single one is tried: the
                        # measured calls decide (the estimate's rates are rough)
CLEAR_GAIN = 0.8        # a settled split measured under 80 % of every participant alone
                        # needs no trial of the fastest one alone
PAYBACK_CALLS = 10      # new shares must win back the preparation of their parts within
                        # this many calls (a new split is analysed, bound and built again)
# The trial of the fastest participant alone against the split, by jitgpu/choice.py's rules:
# its first call alone is not counted (it goes through the one-device path's preparation), then
# two, or one when either way is twice as fast; the fastest call of each way counts.
TRIAL_RULES = Rules(warmup=1, samples=2, clear=2.0)


@dataclass(frozen=True)
class Cost:
    """A participant's estimated seconds for a share x of the outer loop: `fixed_s + x *
    whole_s`; `alone_s` when it runs the whole loop by itself (the OpenMP code then has every
    core, not only those the devices leave it)."""
    label: str
    fixed_s: float
    whole_s: float
    alone_s: float

    def seconds(self, share: float) -> float:
        return self.fixed_s + share * self.whole_s if share > 0 else 0.0


def balanced(costs, keep_all: bool = False) -> tuple:
    """Shares (summing to 1) with which every participant finishes at the same estimated time
    `T`: x_i = (T - fixed_i) / whole_i. A participant whose share comes out under MIN_SHARE is
    left out and the rest balanced again, unless `keep_all` (UNPY_FORCE_GPU=1): then each keeps
    at least MIN_SHARE."""
    active = list(range(len(costs)))
    while True:
        whole = {i: max(costs[i].whole_s, 1e-12) for i in active}
        t = (1 + sum(costs[i].fixed_s / whole[i] for i in active)) / sum(1 / whole[i]
                                                                          for i in active)
        x = {i: (t - costs[i].fixed_s) / whole[i] for i in active}
        low = [i for i in active if x[i] < MIN_SHARE]
        if not low or keep_all or len(active) == 1:
            break
        active.remove(min(low, key=lambda i: x[i]))
    if keep_all:
        total = sum(max(v, 0.0) for v in x.values())
        x = {i: max(max(v, 0.0) / total, MIN_SHARE) for i, v in x.items()}
    total = sum(x.values())
    return tuple(x.get(i, 0.0) / total for i in range(len(costs)))


def estimated_seconds(costs, shares) -> float:
    """The estimated time of a split: its slowest participant."""
    return max(c.seconds(x) for c, x in zip(costs, shares))


def alone(k: int, count: int) -> tuple:
    """The shares of participant k alone."""
    return tuple(1.0 if i == k else 0.0 for i in range(count))


@dataclass(frozen=True)
class Decision:
    shares: tuple           # all zero: none of them, the plain OpenMP code on every core
    why: str
    doubtful: bool = False  # a split the estimate does not favour: tried, then compared


def first_split(costs, openmp_s: float, forced: bool = False) -> Decision:
    """The first call's shares: balanced when that is estimated faster than the best of each
    participant alone and of the plain OpenMP code on every core (`openmp_s`), or within
    TRY_FACTOR of it (then `doubtful`: once settled, the split is compared with the fastest
    participant alone, measured); else that best one. `forced` (UNPY_FORCE_GPU=1): every
    participant takes part."""
    shares = rounded(balanced(costs, keep_all=forced), keep_all=forced)
    split_s = estimated_seconds(costs, shares)
    if forced:
        return Decision(shares, "UNPY_FORCE_GPU=1: every participant takes part")
    best = min(range(len(costs)), key=lambda k: costs[k].alone_s)
    best_s = min(costs[best].alone_s, openmp_s)
    text = (f"estimated {split_s * 1e3:.3f} ms split vs {best_s * 1e3:.3f} ms for the best "
            f"single one")
    if sum(1 for x in shares if x > 0) > 1:
        if split_s < SPLIT_MARGIN * best_s:
            return Decision(shares, f"the split pays: {text}")
        if split_s < TRY_FACTOR * best_s:
            return Decision(shares, f"the split is tried ({text}), then compared with the "
                                    f"fastest alone", doubtful=True)
    if costs[best].alone_s <= openmp_s:
        return Decision(alone(best, len(costs)), f"splitting does not pay ({text}): "
                                                 f"{costs[best].label} alone")
    return Decision(tuple(0.0 for _ in costs), f"splitting does not pay ({text}): the OpenMP "
                                                "code on every core")


def rounded(shares, keep_all: bool = False) -> tuple:
    """Shares cut at whole multiples of 1 / GRAIN of the loop (the cumulative sums rounded, so
    they still sum to 1). A share rounded to nothing is left out, unless `keep_all`
    (UNPY_FORCE_GPU=1): then it keeps one grain, taken from the largest."""
    total = sum(shares)
    if total <= 0:
        return tuple(shares)
    cuts, reached = [0], 0.0
    for x in shares:
        reached += x / total
        cuts.append(round(reached * GRAIN))
    counts = [b - a for a, b in zip(cuts, cuts[1:])]
    if keep_all:
        for k, x in enumerate(shares):
            if x > 0 and counts[k] == 0:
                counts[max(range(len(counts)), key=counts.__getitem__)] -= 1
                counts[k] = 1
    return tuple(c / GRAIN for c in counts)


def measured_costs(costs, observed) -> tuple:
    """Each participant's model `fixed + x * whole` fitted to its measured seconds: `observed`
    is {participant: {share: [seconds of its calls there]}}, most recent share last, the
    fastest call at a share counting.
    - Two shares measured (a grain or more apart): the line through the last two.
    - One share: its rate alone (no fixed cost), which makes balancing Huchant et al.'s
      fixed-point step; a wrong estimate does not mislead it.
    - A line with a negative fixed cost or slope (a disturbed call among its points): the
      estimate scaled through the last share, the fixed part in the estimate's proportion.
    `alone_s` scales with the whole loop's time (from one share, the faster of the rate's and
    the scaled estimate's); a participant never measured keeps its estimate."""
    fitted = []
    for k, c in enumerate(costs):
        points = [(x, min(ts)) for x, ts in observed.get(k, {}).items()]
        if not points:
            fitted.append(c)
            continue
        x1, t1 = points[-1]
        scale = t1 / max(c.seconds(x1), 1e-12)
        alone_ratio = c.alone_s / max(c.fixed_s + c.whole_s, 1e-12)
        if len(points) < 2 or abs(x1 - points[-2][0]) < 1 / GRAIN:
            fixed, whole = 0.0, t1 / x1
            # Alone, by the rate or by the scaled estimate, whichever is faster: a trial
            # measures it when either makes it compete.
            alone_s = min(whole, (c.fixed_s + c.whole_s) * scale) * alone_ratio
        else:
            x0, t0 = points[-2]
            whole = (t1 - t0) / (x1 - x0)
            fixed = t1 - x1 * whole
            if whole <= 0 or fixed < 0:
                fixed, whole = c.fixed_s * scale, c.whole_s * scale
            alone_s = (fixed + whole) * alone_ratio
        fitted.append(Cost(c.label, fixed, whole, alone_s))
    return tuple(fitted)


@dataclass(frozen=True)
class Step:
    """One call of a balanced nest: the shares it ran with, each participant's seconds, the
    whole call's seconds, and what was decided after it."""
    shares: tuple
    seconds: tuple
    total_s: float
    note: str = ""


@dataclass
class Balance:
    """The shares of one (nest, shapes, participants), from the first estimate through every
    call's update (see the module's docstring)."""
    labels: tuple
    costs: tuple
    shares: tuple
    why: str                        # the current shares' reason
    forced: bool = False
    doubtful: bool = False          # the estimate did not favour the split: always compared
    history: list = field(default_factory=list)     # of Step, the last HISTORY kept
    settled: bool = False
    trial: Optional[int] = None     # the participant the next call runs alone, as a trial
    choice: Optional[Choice] = None   # the trial's: "split" against "alone"
    split_s: Optional[float] = None  # the settled split's measured seconds
    # {participant: {share it ran: its last OBSERVED calls' seconds}}, most recent share last
    observed: dict = field(default_factory=dict)
    ran_ranges: set = field(default_factory=set)    # the device parts' ranges run so far
    proposed: Optional[tuple] = None    # settled shares the last call proposed moving to
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    HISTORY = 16
    OBSERVED = 2        # calls at one share of which the fastest counts
    SHARES_KEPT = 4     # shares per participant remembered

    def next_shares(self) -> tuple:
        """The shares of the next call."""
        with self.lock:
            return alone(self.trial, len(self.labels)) if self.trial is not None else self.shares

    def record(self, shares, seconds, total_s, ran=None, fresh=(),
               prepare_s: float = 0.0) -> None:
        """Update after a call that was given `shares`, ran the parts `ran` of the loop (the
        shares rounded to whole iterations; default `shares`) and took `seconds` per
        participant, `total_s` in all. `fresh`: the participants (indices) whose times are not
        representative (the first run of new parts: kernels compiled at launch, fresh device
        buffers): see `_first_run`. `prepare_s`: what preparing the parts of other shares
        costs (moving pays only when the calls it speeds up win that back)."""
        with self.lock:
            shares, ran, seconds = tuple(shares), tuple(shares if ran is None else ran), \
                tuple(seconds)
            if any(ran[k] > 0 for k in fresh):
                note = self._first_run(shares, seconds, total_s, ran, fresh)
            else:
                note = self._update(shares, seconds, total_s, ran, prepare_s)
            self.history.append(Step(ran, seconds, total_s, note))
            del self.history[:-self.HISTORY]

    def _first_run(self, shares, seconds, total_s, ran, fresh) -> str:
        """A call some participants ran for the first time: the others' times are learnt, and
        the only decision made is a trial of the participant modelled fastest alone when the
        others' times already make the split over twice as slow (mmult f64 4096 beside the
        OpenMP code on the H100: 0.7 s per call for the OpenMP code's 2 %, 18 ms on the GPU
        alone, where the estimate had the OpenMP code 40x faster)."""
        note = "the parts' first run: not learnt from"
        known = tuple(0.0 if k in fresh else x for k, x in enumerate(ran))
        if (self.trial is not None or shares != self.shares or self.forced or self.settled
                or sum(1 for x in ran if x > 0) < 2 or not any(known)):
            return note
        self._observe(known, seconds)
        known_s = max(t for t, x in zip(seconds, known) if x > 0)
        model = measured_costs(self.costs, self.observed)
        k = min(range(len(model)), key=lambda i: model[i].alone_s)
        if 2 * model[k].alone_s <= known_s:
            self.settled = True
            self._start_trial(k, [total_s])
            return (f"{note} but by the others' times {self.labels[k]} alone is modelled over "
                    f"twice as fast ({model[k].alone_s * 1e3:.3f} ms vs at least "
                    f"{known_s * 1e3:.3f} ms split); the next calls run it alone, to compare")
        return note

    def _update(self, shares, seconds, total_s, ran, prepare_s) -> str:
        if self.trial is not None and shares == alone(self.trial, len(self.labels)):
            self.choice.record("alone", total_s)
            if not self.choice.settled:
                return f"{self.labels[self.trial]} alone, to compare with the split"
            k, self.trial = self.trial, None
            alone_s, split_s = self.choice.fastest("alone"), self.choice.fastest("split")
            if self.choice.chosen == "alone":
                self.shares = shares
                self.why = (f"splitting does not pay: measured {alone_s * 1e3:.3f} ms with "
                            f"{self.labels[k]} alone vs {split_s * 1e3:.3f} ms split")
            else:
                self.why = (f"the split pays: measured {split_s * 1e3:.3f} ms split vs "
                            f"{alone_s * 1e3:.3f} ms with {self.labels[k]} alone")
            return self.why
        if shares != self.shares or sum(1 for x in ran if x > 0) < 2:
            return ""
        self._observe(ran, seconds)
        model = measured_costs(self.costs, self.observed)
        new = rounded(balanced(model, keep_all=self.forced), keep_all=self.forced)
        now_s, new_s = estimated_seconds(model, ran), estimated_seconds(model, new)
        k = min(range(len(model)), key=lambda i: model[i].alone_s)
        gain_s = now_s - new_s
        moves = new != shares and gain_s > MIN_GAIN * now_s and gain_s * PAYBACK_CALLS > prepare_s
        alone_faster = not self.forced and model[k].alone_s <= new_s and not self.split_s
        for_good = alone_faster or not (moves or self.settled)      # a trial, or settling
        close = not alone_faster or 2 * model[k].alone_s > now_s
        if for_good and close and not self.forced and self._last_same(ran) is None:
            # A close decision for good on one call at these shares: a busy spell of the
            # shared host could make it (H100, stencil f64 8192: one call's OpenMP part took
            # 23 ms for 60 % of the loop, the next ones 12 ms, and the split was dropped).
            return "one call at these shares: one more before deciding"
        if alone_faster:
            # The measured rates say one participant alone beats any split: measure it now.
            self.settled = True
            self._start_trial(k, self._split_calls(ran, total_s))
            return (f"{self.labels[k]} alone is modelled faster ({model[k].alone_s * 1e3:.3f} "
                    f"ms vs {new_s * 1e3:.3f} ms split); the next calls run it alone, to "
                    f"compare")
        if moves and self.settled:
            # Settled shares move only when two calls in a row, each by its own times (not the
            # fastest of the last calls, which keeps one quick spell for two calls), propose
            # it: on the H100 one call's spell (the OpenMP part of stencil 8192 beside the
            # GPU's copies took 6.6 to 16.7 ms at one share) moved them away and back, each new
            # share paying its parts' first run (0.1-0.2 s).
            own = rounded(balanced(self._own_model(ran, seconds), keep_all=self.forced),
                          keep_all=self.forced)
            proposed, self.proposed = self.proposed, (new if own == new else None)
            if proposed != new or own != new:
                return (f"the shares would move to {self.describe_shares(new)} (modelled "
                        f"{new_s * 1e3:.3f} ms vs {now_s * 1e3:.3f} ms); "
                        + ("one more call to confirm" if own == new else
                           "not by this call's own times"))
        self.proposed = None
        if moves:
            self.shares, self.settled = new, False
            self.why = "rebalanced from the measured times"
            if sum(1 for x in new if x > 0) == 1:
                self.why = (f"{self.labels[new.index(max(new))]} alone: the measured rates "
                            f"leave the others under {MIN_SHARE:.0%} of the loop")
            return (f"shares moved: {self.describe_shares(new)} (modelled {new_s * 1e3:.3f} ms "
                    f"vs {now_s * 1e3:.3f} ms)")
        if self.settled:
            return ""
        self.settled = True
        calls = self._split_calls(ran, total_s)
        self.split_s = min(calls)
        if self.forced:
            return "settled"
        if now_s < CLEAR_GAIN * model[k].alone_s and not self.doubtful:
            return (f"settled; the split pays clearly ({now_s * 1e3:.3f} ms vs about "
                    f"{model[k].alone_s * 1e3:.3f} ms for {self.labels[k]} alone)")
        self._start_trial(k, calls)
        return f"settled; the next calls run on {self.labels[k]} alone, to compare"

    def _observe(self, ran, seconds) -> None:
        """Note each participant's seconds at the share it ran (that share becomes its most
        recent)."""
        for k, (x, t) in enumerate(zip(ran, seconds)):
            if x > 0:
                seen = self.observed.setdefault(k, {})
                seen[x] = (seen.pop(x, []) + [t])[-self.OBSERVED:]
                while len(seen) > self.SHARES_KEPT:
                    del seen[next(iter(seen))]

    def _own_model(self, ran, seconds) -> tuple:
        """The measured model with this call's own times at the shares it ran."""
        own = {k: dict(seen) for k, seen in self.observed.items()}
        for k, (x, t) in enumerate(zip(ran, seconds)):
            if x > 0:
                own.setdefault(k, {}).pop(x, None)
                own[k][x] = [t]
        return measured_costs(self.costs, own)

    def _last_same(self, ran) -> Optional[Step]:
        """The last call, if it ran the same parts and was learnt from."""
        last = self.history[-1] if self.history else None
        same = last is not None and last.shares == ran and "first run" not in last.note
        return last if same else None

    def _split_calls(self, ran, total_s) -> list:
        """The split's calls: the last one, if it ran the same parts, and this one."""
        last = self._last_same(ran)
        return [last.total_s, total_s] if last else [total_s]

    def _start_trial(self, k: int, split_calls) -> None:
        """The next calls run participant k alone, to compare with the split's calls."""
        self.trial, self.split_s = k, min(split_calls)
        self.choice = Choice(TRIAL_RULES, ("split", "alone"))
        for seconds in split_calls:
            self.choice.known("split", seconds)

    def describe_shares(self, shares=None) -> str:
        shares = self.shares if shares is None else shares
        return ", ".join(f"{label} {x:.3f}" for label, x in zip(self.labels, shares))

    def describe(self) -> str:
        """The share history, for `unpython.explain`."""
        with self.lock:
            lines = [f"shares: {self.describe_shares()} ({self.why})"]
            for k, step in enumerate(self.history):
                times = ", ".join(f"{label} {t * 1e3:.3f} ms" for label, x, t in
                                  zip(self.labels, step.shares, step.seconds) if x > 0)
                lines.append(f"call {k + 1}: {self.describe_shares(step.shares)} -> {times}; "
                             f"total {step.total_s * 1e3:.3f} ms"
                             + (f"; {step.note}" if step.note else ""))
            return "\n".join(lines)


_BALANCES = collections.OrderedDict()    # key -> Balance, most recent last
_KEPT = 64
_lock = threading.Lock()


def remember(cache, key, make, kept: int):
    """`cache[key]` (an OrderedDict kept as an LRU of `kept` entries), made by `make()` outside
    the lock on first use; when two threads make it at once, the first one stored wins."""
    with _lock:
        found = cache.get(key)
        if found is not None:
            cache.move_to_end(key)
            return found
    made = make()
    with _lock:
        found = cache.setdefault(key, made)
        cache.move_to_end(key)
        while len(cache) > kept:
            cache.popitem(last=False)
        return found


def balance_for(key, make) -> Balance:
    """The Balance remembered under `key` (nest, shapes, participants), made by `make()` on
    first use."""
    return remember(_BALANCES, key, make, _KEPT)


def forget() -> None:
    """Forget every balance (tests)."""
    with _lock:
        _BALANCES.clear()
