"""The one measured-choice mechanism (jitgpu/choice.py) on synthetic seconds, and its three
users fed through their own seams (decide.Trial, shares.Balance's trial, the search's rules):
warm-up calls not counted, the enough-evidence rule, a clearly slower candidate dropped after
one call, the budget of a search without a 10 % gain, a kept choice watched and measured again
when later calls contradict it, at a bounded rate, and one slow outlier that flips nothing. No
test times anything."""
import math

import pytest

from jitgpu import decide, search, shares
from jitgpu.choice import Choice, Rules

RULES = Rules(warmup=1, samples=2, clear=2.0, revisit=2.0, window=3, revisit_every=10)


def feed(choice, calls):
    """Run `calls` calls, each of the candidate the choice asks for, taking `seconds[label]`
    (a number, or a function of the call's index); returns the labels run."""
    ran = []
    for k in range(len(calls) if isinstance(calls, list) else calls[1]):
        label = choice.next()
        times = calls[k] if isinstance(calls, list) else calls[0]
        seconds = times[label](k) if callable(times[label]) else times[label]
        choice.record(label, seconds)
        ran.append(label)
    return ran


# --- samples and the enough-evidence rule ---------------------------------------------------

def test_warm_up_calls_are_not_counted_and_the_candidates_take_turns():
    choice = Choice(RULES, ("a", "b"))
    ran = feed(choice, ({"a": 1.0, "b": 0.9}, 6))
    # a's warm-up, a, b's warm-up, b, then a and b once more each: two counted calls of each
    assert ran == ["a", "a", "b", "b", "a", "b"]
    assert choice.times == {"a": [1.0, 1.0], "b": [0.9, 0.9]}
    assert choice.settled and choice.chosen == "b" and not choice.gave_up


def test_close_times_are_not_settled_on_one_call_of_each():
    choice = Choice(RULES, ("a", "b"))
    for label, seconds in [("a", 9.0), ("a", 1.0), ("b", 9.0), ("b", 1.5)]:
        choice.record(label, seconds)
    assert not choice.settled and choice.next() == "a"
    choice.record("a", 3.0)              # a busy spell: the fastest call counts
    choice.record("b", 1.2)
    assert choice.chosen == "a" and choice.fastest("a") == 1.0


def test_a_clearly_slower_candidate_is_dropped_after_one_call():
    choice = Choice(RULES, ("device", "openmp"))
    ran = feed(choice, ({"device": 1e-3, "openmp": 1e-4}, 4))
    assert ran == ["device", "device", "openmp", "openmp"]
    assert choice.chosen == "openmp" and choice.dropped == {"device"}
    assert choice.times["device"] == [1e-3]          # one counted call: no second one
    assert choice.drop_above() == pytest.approx(2e-4) and choice.clearly_slower(2e-4)


def test_known_times_are_evidence_and_not_run():
    choice = Choice(RULES, ("split", "alone"))
    for seconds in (0.012, 0.010):
        choice.known("split", seconds)
    assert feed(choice, ({"split": None, "alone": 0.008}, 3)) == ["alone"] * 3
    assert choice.chosen == "alone" and choice.times["split"] == [0.012, 0.010]


def test_candidates_offered_as_they_are_built_and_a_search_that_finds_no_gain_gives_up():
    rules = Rules(warmup=0, samples=1, clear=1.5, budget=2, gain=0.10)
    choice = Choice(rules, closed=False)
    choice.offer("default")
    choice.record("default", 1.0)
    choice.offer("t1")
    choice.record("t1", 0.95)             # 5 %: no gain
    assert not choice.settled
    choice.offer("t2")
    choice.record("t2", 0.99)
    assert choice.settled and choice.gave_up and choice.chosen == "t1"


def test_the_fastest_candidates_own_calls_do_not_spend_the_budget():
    """A search's layout runs its default kernel while candidates are built: the default's
    calls, each a little faster by noise, are not alternatives timed without a gain."""
    rules = Rules(warmup=0, samples=1, clear=1.5, budget=2, gain=0.10)
    choice = Choice(rules, closed=False)
    choice.offer("default")
    for seconds in (1.0, 0.999, 0.998, 0.997, 0.996):
        choice.record("default", seconds)
    assert not choice.settled
    choice.offer("t1")
    choice.record("t1", 0.7)              # a gain, found after the default's calls
    choice.offer("t2")
    choice.record("t2", 0.69)
    choice.offer("t3")
    choice.record("t3", 0.68)             # two alternatives without a gain: given up
    assert choice.settled and choice.gave_up and choice.chosen == "t3"


def test_a_gain_of_ten_percent_renews_the_budget_and_slower_ones_are_dropped():
    rules = Rules(warmup=0, samples=1, clear=1.5, budget=2, gain=0.10)
    choice = Choice(rules, closed=False)
    for label, seconds in [("default", 1.0), ("t1", 0.85), ("t2", 2.0), ("t3", 0.5),
                           ("t4", 0.49)]:
        choice.offer(label)
        choice.record(label, seconds)
        assert not choice.settled, label
    assert choice.dropped == {"default", "t1", "t2"}      # 1.5x t3's time or more
    choice.close()                        # every candidate timed once: enough
    assert choice.chosen == "t4" and not choice.gave_up


def test_failed_candidates_are_dropped():
    choice = Choice(Rules(warmup=0, samples=1, clear=1.5), ("default", "t1"))
    choice.record("default", 1.0)
    choice.record("t1", math.inf)
    assert choice.chosen == "default" and "t1" in choice.dropped


# --- watching the kept choice ---------------------------------------------------------------

def settled_on_openmp(rules=RULES):
    choice = Choice(rules, ("device", "openmp"))
    feed(choice, [{"device": 9.0}, {"device": 0.015}, {"openmp": 9.0}, {"openmp": 0.010},
                  {"device": 0.021}, {"openmp": 0.011}])
    assert choice.chosen == "openmp"
    return choice


def test_a_kept_choice_twice_as_slow_as_its_alternative_is_measured_again():
    choice = settled_on_openmp()
    for _ in range(2):
        choice.record("openmp", 0.045)
    assert choice.settled                 # the window is not full yet
    choice.record("openmp", 0.041)
    assert not choice.settled and choice.revisits == 1
    assert choice.times["openmp"] == [0.045, 0.045, 0.041]    # its recent calls are its record
    ran = feed(choice, ({"device": 0.020, "openmp": 0.041}, 2))
    assert ran == ["device", "device"]    # the device's warm-up, then its call: 2x faster
    assert choice.chosen == "device"


def test_one_slow_outlier_does_not_flip_a_choice():
    choice = settled_on_openmp()
    for seconds in [0.011, 0.500, 0.010] * 10:
        choice.record("openmp", seconds)
    assert choice.chosen == "openmp" and choice.revisits == 0


def test_a_drift_under_twice_the_alternative_is_kept():
    choice = settled_on_openmp()
    for _ in range(20):
        choice.record("openmp", 0.029)    # slower than it was, faster than 2x the device's
    assert choice.chosen == "openmp" and choice.revisits == 0


def test_revisits_are_bounded_on_a_machine_that_flips_every_call():
    """A machine where whichever side is not running is always 3x faster: the choice flips
    at most once per `revisit_every` calls."""
    choice = settled_on_openmp()
    calls = 200
    for k in range(calls):
        label = choice.next()
        if choice.settled:
            other = "device" if label == "openmp" else "openmp"
            seconds = 3 * choice.fastest(other)
        else:
            seconds = {"device": 0.020, "openmp": 0.010}[label]
        choice.record(label, seconds)
    assert 1 <= choice.revisits <= 1 + calls // RULES.revisit_every


def test_replayed_calls_count_towards_the_revisit_rate():
    choice = settled_on_openmp(Rules(warmup=1, samples=2, clear=2.0, window=3,
                                     revisit_every=100))
    choice.record("openmp", 0.1)
    choice.record("openmp", 0.1)
    choice.record("openmp", 0.1)          # the first revisit is free
    assert not choice.settled
    feed(choice, ({"device": 0.020, "openmp": 0.1}, 2))
    assert choice.chosen == "device"
    for _ in range(3):
        choice.record("device", 0.5, calls=32)    # one sample per 32 replayed calls
    assert choice.settled                 # 96 calls since the revisit
    choice.record("device", 0.5, calls=32)
    assert not choice.settled and choice.revisits == 2


# --- the three users ------------------------------------------------------------------------

def test_decide_trial_watches_and_measures_the_device_again():
    from jitgpu.plan import Estimate
    trial = decide.Trial(Estimate(1e-3, 1e-3, 0))
    for side, seconds in [("device", 5.0), ("device", 0.020), ("openmp", 5.0),
                          ("openmp", 0.009)]:
        assert (side == "openmp") == trial.wants_openmp()
        trial.record(side, seconds)
    assert trial.on_device is False and trial.watches_openmp()
    assert trial.replay_budget() is None
    for _ in range(decide.RULES.window):
        trial.record("openmp", 0.045)     # OpenMP's later calls: over twice the device's
    assert trial.on_device is None and not trial.wants_openmp()
    assert "measured again" in str(trial) and trial.replay_budget() == 1
    trial.record("device", 5.0)           # its warm-up again
    trial.record("device", 0.019)
    assert trial.on_device is True and trial.replay_budget() == decide.WATCH_REPLAYS


def test_decide_does_not_watch_cheap_openmp_calls():
    from jitgpu.plan import Estimate
    trial = decide.Trial(Estimate(1e-3, 1e-3, 0))
    for side, seconds in [("device", 1.0), ("device", 1e-3), ("openmp", 1.0), ("openmp", 1e-5)]:
        trial.record(side, seconds)
    assert trial.on_device is False and not trial.watches_openmp()


def test_the_balance_trial_drops_a_clearly_slower_way_after_one_counted_call():
    costs = (shares.Cost("a", 0.0, 0.010, 0.010), shares.Cost("b", 0.0, 0.010, 0.010))
    balance = shares.Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    for _ in range(2):
        balance.record((0.5, 0.5), (0.005, 0.005), 0.005)
    assert balance.trial == 0
    runs = []
    while balance.trial is not None:
        x = balance.next_shares()
        runs.append(x)
        balance.record(x, [0.030 if s else 0.0 for s in x], 0.030)
    assert runs == [(1.0, 0.0), (1.0, 0.0)]     # its warm-up, then one call: 6x slower
    assert balance.next_shares() == (0.5, 0.5) and "the split pays" in balance.why


def test_the_search_rules():
    assert search.RULES.clear == 1.5 and search.RULES.gain == 0.10
    assert search.RULES.budget == search.BUDGET and search.RULES.samples == 1


# --- like with like: a device sample counts only where it ran as the device's calls will -----

def test_discarded_times_are_measured_anew_without_a_warm_up():
    choice = Choice(RULES, ("a", "b"))
    feed(choice, [{"a": 9.0}, {"a": 3.0}])
    assert choice.times["a"] == [3.0] and not choice.warming("a")
    choice.discard("a")
    assert choice.times["a"] == [] and choice.next() == "a" and not choice.warming("a")
    choice.record("a", 1.0)
    assert choice.times["a"] == [1.0]


def _trial_on(calls):
    """A Trial fed `calls`, each (side, seconds, path); returns it."""
    from jitgpu.plan import Estimate
    trial = decide.Trial(Estimate(1e-3, 1e-3, 0))
    for side, seconds, path in calls:
        trial.record(side, seconds, path=path)
    return trial


PY, REPLAYED = decide.PYTHON, decide.REPLAYED


def test_a_replayed_layout_is_judged_by_its_replayed_calls():
    """Through Python the device takes 3 ms, OpenMP 1 ms, replayed 0.5 ms: the replays decide,
    and the device is kept (the device calls through Python after a replay are no evidence)."""
    trial = _trial_on([("device", 5.0, PY),            # the warm-up: builds
                       ("device", 0.5e-3, REPLAYED),
                       ("device", 3e-3, PY),
                       ("openmp", 9.0, PY),            # OpenMP's warm-up
                       ("openmp", 1e-3, PY)])
    assert trial.on_device is True and trial.device_s == [0.5e-3] and trial.replays
    assert "0.500 ms on the device (1 replayed call(s))" in str(trial)
    for _ in range(decide.RULES.window):                # kept: watched by its replays only,
        trial.record("device", 10.0, calls=64, path=PY)  # so slow Python calls change nothing
    assert trial.on_device is True


def test_the_reverse_keeps_openmp():
    """Through Python the device takes 0.5 ms, replayed 3 ms (a faster Python path would have
    decided before), OpenMP 1 ms: OpenMP is kept."""
    trial = _trial_on([("device", 5.0, PY), ("device", 3e-3, REPLAYED), ("device", 0.5e-3, PY),
                       ("openmp", 9.0, PY), ("openmp", 1e-3, PY)])
    assert trial.on_device is False and trial.device_s == [3e-3]


def test_python_path_samples_counted_before_the_first_replay_are_dropped():
    trial = _trial_on([("device", 5.0, PY), ("device", 0.4e-3, PY)])    # new arrays, say
    assert trial.device_s == [0.4e-3] and not trial.replays
    trial.record("device", 2e-3, path=REPLAYED)
    assert trial.device_s == [2e-3]


def test_a_layout_that_stops_replaying_is_judged_through_python_again():
    trial = _trial_on([("device", 5.0, PY), ("device", 2e-3, REPLAYED)])
    trial.not_replayed()                  # its record failed: calls come through Python now
    trial.record("device", 1.5e-3, path=PY)
    assert trial.device_s == [2e-3, 1.5e-3] and not trial.replays


def test_the_seam_is_told_how_a_device_call_ran(monkeypatch):
    seen = []
    monkeypatch.setattr(decide, "measured_seconds",
                        lambda side, s, path: seen.append((side, path)) or s)
    _trial_on([("device", 5.0, PY), ("device", 1e-3, REPLAYED), ("openmp", 5.0, PY),
               ("openmp", 1e-3, PY)])
    assert seen == [("device", REPLAYED), ("openmp", PY)]       # warm-ups skip the seam
