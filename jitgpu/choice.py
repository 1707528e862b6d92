"""One way to choose by measuring (issue 20, item 3): the GPU-or-OpenMP decision
(jitgpu/decide.py), the trial of a split against its fastest participant alone
(jitgpu/shares.py) and the kernel search (jitgpu/search.py) each hand a `Choice` the seconds
their calls took, and ask it which candidate to run next and whether it has settled. It knows
nothing of devices or clocks: seconds come in, labels go out (tests feed synthetic ones).

The rules, with the numbers of a frozen `Rules`:

- Samples. A candidate's first `warmup` calls of a measuring round are not counted (a first run
  builds, allocates, or follows the other side's calls and runs slowly). Of its counted calls
  the fastest is its time: a busy spell of a shared machine slows calls, it never speeds them,
  so the fastest is the least noisy figure. Times measured elsewhere (a record on disk, a
  split's own calls) come in counted, with `known`: that candidate is not run by the choice,
  and what it has is all the evidence it gets. Times that turn out not to be taken the way
  the candidate's calls will run (jitgpu/decide.py: calls through Python of a layout that C++
  replays) are dropped with `discard`, and the candidate is measured anew.
- Next. The next call runs the candidate, of those offered, not dropped and still short of
  `samples` counted calls, with the fewest (the first offered on a tie): the candidates take
  turns; once settled, the chosen one.
- Dropped after one call. A candidate whose time is `clear` times the fastest candidate's or
  more is dropped: it is not run again (one call of a clearly slower candidate is what the
  choice costs the user, not `samples` of them).
- Enough evidence. The choice settles on the fastest candidate once no more candidates are to
  come (`close`; a choice made with its candidates is closed) and every candidate not dropped
  has `samples` counted calls (or is `known`), or only one is left.
- A budget. With `budget` set, the choice also settles, on the fastest so far, after `budget`
  counted calls of the other candidates without a time `gain` below the best one before them:
  a search that finds no 10 % soon stops costing the calls it times. (Calls spent waiting for
  a candidate's build cost the user nothing and do not count: how fast builds finish must not
  decide; nor do the fastest candidate's own later calls, which a search's layout runs
  meanwhile: on an H200 the default kernel's calls of mmult f32 2048, a little faster each by
  noise, spent the budget in 4 calls before a candidate was built.)
- Watching and revisiting. A settled choice keeps taking the chosen candidate's times (the
  callers keep timing the calls they run): when the fastest of its last `window` calls (one
  slow outlier among them does not count) is `revisit` times the recorded time of an
  alternative or more, each such alternative is measured again (a new round: warm-up, then
  `samples` calls unless dropped) against those `window` calls, and the rules above decide
  anew. Revisits are `revisit_every` calls apart at least, so a noisy machine does not flip a
  choice every call.
"""
from __future__ import annotations

import collections
import math
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Rules:
    warmup: int = 1                 # calls of a candidate, per round, not counted
    samples: int = 2                # counted calls of each candidate that are enough
    clear: float = 2.0              # this many times the fastest: dropped
    budget: Optional[int] = None    # calls without a `gain` before giving up (None: never)
    gain: float = 0.10
    revisit: float = 2.0            # the chosen one this many times an alternative: measured again
    window: int = 3                 # the chosen one's last calls watched
    revisit_every: int = 64         # calls between two revisits, at least


@dataclass
class Choice:
    """The measured calls of a choice between candidates (labels) and, once settled, the
    chosen one; see the module's docstring for the rules."""
    rules: Rules
    candidates: list = field(default_factory=list)     # offered so far, in order
    closed: bool = True             # no more candidates will be offered
    chosen: Optional[str] = None
    gave_up: bool = False           # settled by the budget, not every candidate measured
    revisits: int = 0
    times: dict = field(default_factory=dict)          # label -> counted seconds
    dropped: set = field(default_factory=set)
    complete: set = field(default_factory=set)         # measured elsewhere: not run here
    _warm: dict = field(default_factory=dict)           # label -> uncounted calls left
    _since_gain: int = 0
    _recent: collections.deque = field(default_factory=collections.deque)
    _since_revisit: float = math.inf

    def __post_init__(self):
        offered, self.candidates = list(self.candidates), []
        for label in offered:
            self.offer(label)

    # --- what the callers tell it --------------------------------------------------------

    def offer(self, label: str) -> None:
        """A candidate that can be run from now on (its build done)."""
        if label not in self.candidates:
            self.candidates.append(label)
            self.times[label] = []
            self._warm[label] = self.rules.warmup

    def close(self) -> None:
        """No more candidates will be offered."""
        self.closed = True
        self._decide()

    def warming(self, label: str) -> bool:
        """Whether the next call of `label` is a warm-up call, not counted."""
        return self.chosen is None and self._warm.get(label, 0) > 0

    def record(self, label: str, seconds: float, calls: int = 1) -> None:
        """A call of `label` took `seconds` (`calls`: that many calls it stands for, of which
        it is one, such as calls replayed without their own report)."""
        if label not in self.times:
            return
        seconds = float(seconds)
        if self.chosen is not None:
            if label == self.chosen:
                self._watch(seconds, calls)
            return
        if label in self.dropped:
            return
        if self._warm[label] > 0:
            self._warm[label] -= 1
            return
        self._count(label, seconds)

    def known(self, label: str, seconds: float) -> None:
        """A time of `label` measured elsewhere (a record), counted as is; the choice does not
        run `label` (unless a revisit measures it again)."""
        self.offer(label)
        if self.chosen is None:
            self._warm[label] = 0
            self.complete.add(label)
            self._count(label, float(seconds))

    def discard(self, label: str) -> None:
        """Drop the counted times of `label` (taken otherwise than its later calls will run):
        it is measured anew, without another warm-up."""
        if label in self.times and self.chosen is None:
            self.times[label] = []
            self.dropped.discard(label)
            self.complete.discard(label)

    # --- what it answers -----------------------------------------------------------------

    @property
    def settled(self) -> bool:
        return self.chosen is not None

    def fastest(self, label: str) -> Optional[float]:
        """The candidate's time: the fastest of its counted calls (None: none yet)."""
        times = self.times.get(label)
        return min(times) if times else None

    def best(self) -> Optional[str]:
        """The fastest candidate measured so far (the first offered on a tie), or None."""
        measured = [c for c in self.candidates if self.times[c] and
                    math.isfinite(min(self.times[c]))]
        return min(measured, key=self.fastest) if measured else None

    def next(self) -> Optional[str]:
        """The candidate the next call runs: the chosen one, or the one with the fewest
        counted calls of those left; None when none is offered."""
        if self.chosen is not None:
            return self.chosen
        wanting = [c for c in self._left() if not self._enough(c)]
        if not wanting:
            return self.best()
        return min(wanting, key=lambda c: len(self.times[c]))

    def drop_above(self) -> float:
        """The seconds from which a call makes its candidate clearly slower than the fastest
        (dropped: a caller may cut its measurement short there); inf before any time."""
        best = self.best()
        return math.inf if best is None else self.rules.clear * self.fastest(best)

    def clearly_slower(self, seconds: float) -> bool:
        return seconds >= self.drop_above()

    # --- the rules -----------------------------------------------------------------------

    def _left(self) -> list:
        return [c for c in self.candidates if c not in self.dropped]

    def _enough(self, label: str) -> bool:
        return label in self.complete or len(self.times[label]) >= self.rules.samples

    def _count(self, label: str, seconds: float) -> None:
        before = self.best()
        best_s = self.fastest(before) if before is not None else math.inf
        self.times[label].append(seconds)
        if seconds < (1 - self.rules.gain) * best_s or before is None:
            self._since_gain = 0
        elif label != before:
            self._since_gain += 1
        self._decide()

    def _decide(self) -> None:
        if self.chosen is not None:
            return
        best = self.best()
        if best is not None:
            for c in self._left():
                if c != best and self.times[c] and self.clearly_slower(min(self.times[c])):
                    self.dropped.add(c)
        left = self._left()
        if best is None:
            return
        budget = self.rules.budget
        if budget is not None and self._since_gain >= budget:
            self.gave_up = not (self.closed and all(map(self._enough, left)))
            self._settle(best)
        elif self.closed and (len(left) == 1 or all(map(self._enough, left))):
            self._settle(best)

    def _settle(self, label: str) -> None:
        self.chosen = label
        self._recent = collections.deque(maxlen=self.rules.window)

    def _watch(self, seconds: float, calls: int) -> None:
        """A call of the chosen candidate: measured again where it contradicts the record."""
        self._recent.append(seconds)
        self._since_revisit += calls
        if len(self._recent) < self.rules.window or self._since_revisit < self.rules.revisit_every:
            return
        steady = min(self._recent)
        beaten = [c for c in self.candidates if c != self.chosen and self.times[c]
                  and steady >= self.rules.revisit * min(self.times[c])]
        if not beaten:
            return
        self.times[self.chosen] = list(self._recent)
        for c in beaten:
            self.times[c] = []
            self._warm[c] = self.rules.warmup
            self.dropped.discard(c)
            self.complete.discard(c)
        self.chosen, self.gave_up = None, False
        self.revisits += 1
        self._since_revisit, self._since_gain = 0, 0
