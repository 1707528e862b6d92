"""How much of the outer loop each participant of a split nest runs (SPEC section 6).

The first split comes from a transfer-aware estimate, SKMD's model simplified (Lee et al.,
section III-C): a participant given a share x of the outer loop takes `fixed + x * whole`
seconds, `fixed` for what it pays whatever its share (inputs every part needs, the launch) and
`whole` for the share's own transfers and work at the participant's throughput. The balanced
shares finish every participant together; a participant whose share would be too small to pay
its fixed cost is left out, and when the best single participant is estimated faster than the
split, it runs alone.

After every call the shares follow the measured times: `share_i ∝ 1 / (time per iteration on
participant i)`, the fixed point of Huchant et al. (section 5), which holds still once every
participant finishes together. A `Balance` remembers the shares and their history per (nest,
shapes, participants), so repeated calls converge; shares that would move less than SETTLED
stay as they are (the parts, and everything prepared for them, are then reused). Once settled,
a split that does not clearly beat every participant alone (as extrapolated from its measured
rate) is compared with one call of the fastest one alone, and the faster way is kept.

Everything here but the store of balances is a pure function of numbers.
"""
from __future__ import annotations

import collections
import threading
from dataclasses import dataclass, field
from typing import Optional

MIN_SHARE = 0.02        # a participant given less than this is left out
SETTLED = 0.03          # shares that would move less than this (each) stay as they are
SPLIT_MARGIN = 0.95     # a split estimated at under 95 % of the best single one pays, by
                        # the estimate
TRY_FACTOR = 2.0        # a split estimated within 2x of the best single one is tried: the
                        # measured calls decide (the estimate's rates are rough)
CLEAR_GAIN = 0.8        # a settled split measured under 80 % of every participant alone
                        # needs no trial of the fastest one alone
PAYBACK_CALLS = 10      # new shares must win back the preparation of their parts within
                        # this many calls (a new split is analysed, bound and built again)
TRIAL_CALLS = 2         # calls of the fastest participant alone that the trial measures (the
                        # fastest of them counts: one call may meet a busy spell)


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
    shares = balanced(costs, keep_all=forced)
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


def rebalance(shares, seconds, ran=None) -> tuple:
    """One fixed-point step (Huchant et al.): each participant's new share is proportional to
    its measured rate (`ran`, the share of the loop it really ran, per second; `ran` defaults to
    `shares`). One that had a share but ran nothing (too few iterations) keeps its share, the
    others divide the rest; participants without a share keep none."""
    ran = shares if ran is None else ran
    idle = sum(x for x, r in zip(shares, ran) if r <= 0)
    rates = [r / max(t, 1e-9) if r > 0 else 0.0 for r, t in zip(ran, seconds)]
    total = sum(rates)
    if total <= 0:
        return tuple(shares)
    return tuple(x if r <= 0 else (1 - idle) * rate / total
                 for x, r, rate in zip(shares, ran, rates))


def moved(old, new) -> float:
    return max(abs(a - b) for a, b in zip(old, new))


def drop_small(shares, keep_all: bool = False) -> tuple:
    """Shares with those under MIN_SHARE left out (unless `keep_all`), summing to 1."""
    if keep_all:
        kept = [x if x == 0 else max(x, MIN_SHARE) for x in shares]
    else:
        kept = [x if x >= MIN_SHARE else 0.0 for x in shares]
    total = sum(kept)
    return tuple(x / total for x in kept) if total > 0 else tuple(shares)


def extrapolated_alone(costs, shares, seconds) -> tuple:
    """Each participant's time alone, from its measured time at its share: the estimate of it
    alone scaled by how far the estimate at its share was off (None where it had no share).
    A split slowed by its participants' interference (one bus, shared cores) looks as slow
    alone, so it is not trusted to pay clearly: the trial settles it."""
    return tuple(t * c.alone_s / max(c.seconds(x), 1e-12) if x > 0 else None
                 for c, x, t in zip(costs, shares, seconds))


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
    trial_s: list = field(default_factory=list)     # the trial's measured calls so far
    split_s: Optional[float] = None  # the settled split's measured seconds
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    HISTORY = 16

    def next_shares(self) -> tuple:
        """The shares of the next call."""
        with self.lock:
            return alone(self.trial, len(self.labels)) if self.trial is not None else self.shares

    def record(self, shares, seconds, total_s, ran=None, learn: bool = True,
               prepare_s: float = 0.0) -> None:
        """Update after a call that was given `shares`, ran the parts `ran` of the loop (the
        shares rounded to whole iterations; default `shares`) and took `seconds` per
        participant, `total_s` in all. `learn=False`: the times are not representative (a
        kernel's first run on a device, which some drivers compile then), only noted.
        `prepare_s`: what preparing the parts of other shares costs (moving pays only when the
        calls it speeds up win that back)."""
        with self.lock:
            shares, ran = tuple(shares), tuple(shares if ran is None else ran)
            note = (self._update(shares, tuple(seconds), total_s, ran, prepare_s) if learn else
                    "a kernel's first run on a device: not learnt from")
            self.history.append(Step(ran, tuple(seconds), total_s, note))
            del self.history[:-self.HISTORY]

    def _update(self, shares, seconds, total_s, ran, prepare_s) -> str:
        if self.trial is not None and shares == alone(self.trial, len(self.labels)):
            self.trial_s.append(total_s)
            if len(self.trial_s) < TRIAL_CALLS:
                return f"{self.labels[self.trial]} alone, to compare with the split"
            k, self.trial, total_s = self.trial, None, min(self.trial_s)
            if total_s < self.split_s:
                self.shares = shares
                self.why = (f"splitting does not pay: measured {total_s * 1e3:.3f} ms with "
                            f"{self.labels[k]} alone vs {self.split_s * 1e3:.3f} ms split")
            else:
                self.why = (f"the split pays: measured {self.split_s * 1e3:.3f} ms split vs "
                            f"{total_s * 1e3:.3f} ms with {self.labels[k]} alone")
            return self.why
        if shares != self.shares or sum(1 for x in shares if x > 0) < 2:
            return ""
        new = drop_small(rebalance(shares, seconds, ran), keep_all=self.forced)
        # Balanced, the participants would finish together after 1 / (sum of their rates).
        balanced_s = 1 / sum(r / max(t, 1e-9) for r, t in zip(ran, seconds) if r > 0)
        gain_s = max(seconds) - balanced_s
        if moved(shares, new) >= SETTLED and gain_s * PAYBACK_CALLS > prepare_s:
            self.shares, self.settled = new, False
            self.why = "rebalanced from the measured time per iteration"
            if sum(1 for x in new if x > 0) == 1:
                self.why = (f"{self.labels[new.index(max(new))]} alone: the measured rates "
                            f"leave the others under {MIN_SHARE:.0%} of the loop")
            return "shares moved: " + self.describe_shares(new)
        if self.settled:
            return ""
        # The split's time: the faster of this call and the last one, if it ran the same parts.
        last = self.history[-1] if self.history else None
        same = last is not None and last.shares == ran and "first run" not in last.note
        self.settled, self.split_s = True, min(total_s, last.total_s) if same else total_s
        if self.forced:
            return "settled"
        single = extrapolated_alone(self.costs, ran, seconds)
        k = min((i for i in range(len(single)) if single[i] is not None),
                key=lambda i: single[i])
        if total_s < CLEAR_GAIN * single[k] and not self.doubtful:
            return (f"settled; the split pays clearly ({total_s * 1e3:.3f} ms vs about "
                    f"{single[k] * 1e3:.3f} ms for {self.labels[k]} alone)")
        self.trial = k
        return (f"settled; the next {TRIAL_CALLS} calls run on {self.labels[k]} alone, to "
                f"compare")

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
