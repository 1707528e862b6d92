"""Splitting a nest across participants, without running it (jitgpu/split.py, jitgpu/shares.py):
ranges from shares, the balanced first split and its fall-back to one participant, the
fixed-point update converging on a synthetic imbalance, the trial of the fastest one alone,
and split plans of real nests: each part's transfers cover its own slice only, and a write
whose regions may meet is not split."""
import numpy as np
import pytest

from jitgpu import plan, shares
from jitgpu.nest import instantiate, load_nest
from jitgpu.plan import DeviceFacts
from jitgpu.shares import Balance, Cost, balanced, first_split, measured_costs, rounded
from jitgpu.split import (OPENMP, NotSplit, Participant, participant_costs,
                          share_ranges, split_plan, written_bytes)

FACTS = DeviceFacts("dev0", True, 1 << 40, 1 << 40, 20e9, 20e9)
OTHER = DeviceFacts("dev1", True, 1 << 40, 1 << 40, 20e9, 20e9)


# --- ranges ---------------------------------------------------------------------------------

@pytest.mark.parametrize("extent, given", [(37, (0.008, 0.992)), (10, (1, 1, 1)), (5, (0, 1)),
                                           (1, (0.5, 0.5)), (101, (0.5, 0.2, 0.3)),
                                           (7, (0.9, 0.05, 0.05))])
def test_ranges_cover_the_loop_once_in_order(extent, given):
    ranges = share_ranges(extent, given)
    assert ranges[0][0] == 0 and ranges[-1][1] == extent
    assert all(a[1] == b[0] for a, b in zip(ranges, ranges[1:]))
    sizes = [hi - lo for lo, hi in ranges]
    exact = [extent * x / sum(given) for x in given]
    raised = sum(1 for e in exact if 0 < e < 1)     # given one iteration at least
    for x, e, size in zip(given, exact, sizes):
        assert abs(size - e) < 1.0 + raised
        assert (size > 0) == (x > 0) or extent < sum(1 for g in given if g > 0)


# --- the first split ------------------------------------------------------------------------

def test_balanced_shares_finish_together():
    costs = (Cost("a", 0.002, 0.010, 0.012), Cost("b", 0.0, 0.030, 0.030))
    x = balanced(costs)
    assert sum(x) == pytest.approx(1.0)
    assert costs[0].seconds(x[0]) == pytest.approx(costs[1].seconds(x[1]))


def test_a_participant_whose_fixed_cost_outweighs_its_share_is_left_out():
    costs = (Cost("gpu", 0.0, 0.001, 0.001), Cost("slow", 0.005, 0.1, 0.105))
    assert balanced(costs) == (1.0, 0.0)
    forced = balanced(costs, keep_all=True)
    assert forced[1] == pytest.approx(shares.MIN_SHARE, rel=0.05) and sum(forced) == pytest.approx(1)


def test_first_split_falls_back_to_one_participant_when_splitting_does_not_pay():
    two_gpus = (Cost("g0", 0.001, 0.010, 0.011), Cost("g1", 0.001, 0.010, 0.011))
    decision = first_split(two_gpus, openmp_s=1.0)
    assert decision.shares == pytest.approx((0.5, 0.5)) and "pays" in decision.why
    # Transfers every part needs whole (fixed) dominate: estimated no faster than one alone,
    # but close, so the split is tried and then compared with the fastest alone.
    fixed = (Cost("g0", 0.010, 0.001, 0.011), Cost("g1", 0.010, 0.001, 0.011))
    decision = first_split(fixed, openmp_s=1.0)
    assert decision.doubtful and decision.shares == pytest.approx((0.5, 0.5))
    # A device whose fixed cost outweighs any share it could take: the other alone.
    lopsided = (Cost("g0", 0.001, 0.010, 0.011), Cost("slow", 0.050, 0.2, 0.25))
    decision = first_split(lopsided, openmp_s=1.0)
    assert decision.shares == (1.0, 0.0) and "g0 alone" in decision.why
    # The OpenMP code on every core beats them all by far: no share for anyone.
    assert first_split(fixed, openmp_s=0.001).shares == (0.0, 0.0)
    # UNPY_FORCE_GPU=1: everyone takes part.
    assert all(x > 0 for x in first_split(fixed, openmp_s=0.001, forced=True).shares)


# --- the update after each call -------------------------------------------------------------

def simulate(balance, model, calls):
    """Run `calls` calls of a synthetic nest whose participant k takes model[k](x) seconds for
    a share x (0 when x == 0); returns the shares each call ran with."""
    seen = []
    for _ in range(calls):
        x = balance.next_shares()
        seconds = [model[k](s) if s > 0 else 0.0 for k, s in enumerate(x)]
        balance.record(x, seconds, max(seconds))
        seen.append(x)
    return seen


def test_shares_converge_on_a_synthetic_imbalance():
    """Estimated equal, but participant 1 is really 3x slower per iteration: the fixed point
    moves the shares to 3:1 within a few calls and then holds them still."""
    costs = (Cost("fast", 0.0, 1.0, 1.0), Cost("slow", 0.0, 1.0, 1.0))
    balance = Balance(("fast", "slow"), costs, (0.5, 0.5), "estimate", forced=True)
    model = (lambda x: 0.001 + 1.0 * x, lambda x: 0.001 + 3.0 * x)
    seen = simulate(balance, model, 8)
    assert seen[0] == (0.5, 0.5)
    assert seen[-1] == pytest.approx((0.75, 0.25), abs=0.03)
    assert seen[-1] == seen[-2] == seen[-3]            # settled: the parts are reused
    assert balance.settled
    assert "shares moved" in balance.describe() and "settled" in balance.describe()


def test_shares_follow_a_load_that_changes_between_calls():
    costs = (Cost("a", 0.0, 1.0, 1.0), Cost("b", 0.0, 1.0, 1.0))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", forced=True)
    simulate(balance, (lambda x: x, lambda x: x), 3)
    assert balance.shares == (0.5, 0.5)
    seen = simulate(balance, (lambda x: x, lambda x: 4 * x), 6)
    assert seen[-1] == pytest.approx((0.8, 0.2), abs=0.03)


def test_shares_are_cut_at_whole_grains():
    assert rounded((0.4999, 0.5001)) == (0.5, 0.5)
    assert rounded((0.731, 0.269)) == (0.74, 0.26)
    assert rounded((0.333, 0.333, 0.334)) == (0.34, 0.32, 0.34)
    assert sum(rounded((0.3, 0.21, 0.49))) == pytest.approx(1.0)
    assert rounded((0.995, 0.005)) == (1.0, 0.0)                       # under a grain: out
    assert rounded((0.995, 0.005), keep_all=True) == (0.98, 0.02)      # forced: one grain


def test_the_model_is_fitted_to_the_measured_times():
    estimate = (Cost("a", 0.001, 0.010, 0.011), Cost("b", 0.001, 0.010, 0.011))
    # Two shares measured: the line through them, whatever the estimate said.
    a, b = measured_costs(estimate, {0: {0.5: [0.031, 0.030], 0.7: [0.038]}})
    assert a.fixed_s == pytest.approx(0.010) and a.whole_s == pytest.approx(0.040)
    assert a.alone_s == pytest.approx(0.050) and b == estimate[1]      # b never measured
    # One share: its rate (Huchant et al.'s step).
    (a,) = measured_costs(estimate[:1], {0: {0.5: [0.012]}})
    assert (a.fixed_s, a.whole_s) == pytest.approx((0.0, 0.024))
    # A line with a negative fixed cost (a disturbed call): the estimate scaled instead.
    (a,) = measured_costs(estimate[:1], {0: {0.5: [0.100], 0.7: [0.006]}})
    assert a.fixed_s / a.whole_s == pytest.approx(0.1) and a.seconds(0.7) == pytest.approx(0.006)


def test_one_disturbed_call_does_not_hold_identical_devices_apart():
    """Two identical devices whose time is mostly fixed (each copies a whole input): one
    disturbed call moves the shares, and the next call's times bring them back to halves (the
    rate update alone would stay near where the disturbance left it)."""
    costs = (Cost("g0", 0.010, 0.004, 0.014), Cost("g1", 0.010, 0.004, 0.014))
    balance = Balance(("g0", "g1"), costs, (0.5, 0.5), "estimate", forced=True)
    balance.record((0.5, 0.5), (0.012, 0.033), 0.033)       # g1 met a busy spell
    assert balance.shares[0] > 0.6
    model = (lambda x: 0.010 + 0.004 * x, lambda x: 0.010 + 0.004 * x)
    seen = simulate(balance, model, 4)
    assert seen[-1] == seen[-2] == (0.5, 0.5)


def test_a_settled_split_slower_than_one_participant_alone_is_given_up():
    """Each participant pays 10 ms whatever its share (a whole input to copy) and 2 ms for the
    whole loop, and together they slow each other down by half (one bus): after two calls at
    its shares, the fastest alone is tried, found faster, and kept."""
    costs = (Cost("a", 0.010, 0.002, 0.012), Cost("b", 0.010, 0.002, 0.012))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate")

    def model(x, shares):
        both = all(s > 0 for s in shares)
        return (0.010 + 0.002 * x) * (1.5 if both else 1.0)

    seen = []
    for _ in range(6):
        x = balance.next_shares()
        seconds = [model(s, x) if s > 0 else 0.0 for s in x]
        balance.record(x, seconds, max(seconds))
        seen.append(x)
    assert seen[:5] == [(0.5, 0.5), (0.5, 0.5), (1.0, 0.0), (1.0, 0.0), (1.0, 0.0)]
    assert "does not pay" in balance.why and "alone" in balance.describe()


def test_a_split_that_clearly_pays_is_not_tried_alone():
    costs = (Cost("a", 0.0, 0.010, 0.010), Cost("b", 0.0, 0.010, 0.010))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate")
    seen = simulate(balance, (lambda x: 0.010 * x, lambda x: 0.010 * x), 5)
    assert all(x == (0.5, 0.5) for x in seen) and balance.trial is None
    # Unless the estimate did not favour it: then one call alone is measured all the same.
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    seen = simulate(balance, (lambda x: 0.010 * x, lambda x: 0.010 * x), 5)
    assert (1.0, 0.0) in seen and seen[-1] == (0.5, 0.5) and "the split pays" in balance.why


def test_a_first_run_is_noted_but_not_learnt_from():
    costs = (Cost("a", 0.0, 1.0, 1.0), Cost("b", 0.0, 1.0, 1.0))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", forced=True)
    balance.record((0.5, 0.5), (0.5, 5.0), 5.0, fresh=(0, 1))
    assert balance.shares == (0.5, 0.5) and "not learnt from" in balance.describe()


def test_a_first_run_teaches_the_others_times():
    """Device a's first run, beside b (the OpenMP code) far slower than estimated: b's time
    alone already makes the split over twice as slow as a alone, so a alone is tried at once
    (a close call waits for a representative one)."""
    costs = (Cost("a", 0.0, 0.020, 0.020), Cost("b", 0.0, 0.020, 0.020))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    balance.record((0.5, 0.5), (0.9, 0.7), 0.9, fresh=(0,))
    assert balance.trial == 0 and balance.observed == {1: {0.5: [0.7]}}
    assert "twice as fast" in balance.history[-1].note
    close = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    close.record((0.5, 0.5), (0.9, 0.012), 0.9, fresh=(0,))
    assert close.trial is None and not close.settled


# --- split plans of real nests ---------------------------------------------------------------

@pytest.fixture(scope="module")
def nests(gpu):
    return lambda name: load_nest("gpu_kernels", name, 0)


def test_each_part_moves_its_own_slice(nests):
    """matmul split by rows 3:2:... : a part copies in its rows of `a` and all of `b`, and copies
    back only its rows of `c`; the OpenMP participant's range gets no device part."""
    m, n, p = 7, 5, 3
    a, b, c = np.ones((m, p)), np.ones((p, n)), np.zeros((m, n))
    values = {"a": a, "b": b, "c": c, "m": m, "n": n, "p": p}
    instance = instantiate(nests("matmul"), values)
    who = (Participant("dev0", FACTS), Participant("dev1", OTHER), Participant(OPENMP, None))
    split = split_plan(instance, values, who, (3, 2, 2))
    assert split.ranges == (("dev0", 0, 3), ("dev1", 3, 5), (OPENMP, 5, 7))
    assert split.host == (5, 7)
    assert [part.device for part in split.plan.parts] == ["dev0", "dev1"]
    c0 = c.__array_interface__["data"][0]
    row = n * c.itemsize
    for part, (lo, hi) in zip(split.plan.parts, [(0, 3), (3, 5)]):
        assert part.bounds[0] == ("i", lo, hi)
        assert written_bytes(part.transfers) == [(c0 + lo * row, c0 + hi * row)]
        by_array = {g.arrays[0]: g for g in part.transfers.groups}
        assert by_array["a"].device_elems == (hi - lo) * p
        assert by_array["b"].device_elems == p * n
    assert "dev1 [3, 5)" in str(split)


def test_uneven_ranges_of_a_triangular_nest(nests):
    n = 9
    values = {"a": np.ones((n, n)), "c": np.zeros((n, n)), "n": n, "p": n}
    instance = instantiate(nests("syrk"), values)
    who = (Participant("dev0", FACTS), Participant("dev1", OTHER))
    split = split_plan(instance, values, who, (0.8, 0.2))
    assert [r[1:] for r in split.ranges] == [(0, 7), (7, 9)]


def test_a_non_affine_write_is_not_split(nests):
    """scatter writes out[idx[i]]: any part may write anywhere in `out`, so the regions meet."""
    values = {"x": np.ones(8), "idx": np.arange(8)[::-1].copy(), "out": np.zeros(8)}
    instance = instantiate(nests("scatter"), values)
    who = (Participant("dev0", FACTS), Participant(OPENMP, None))
    with pytest.raises(NotSplit, match="may meet"):
        split_plan(instance, values, who, (0.5, 0.5))
    # A non-affine read is fine: each part still writes its own slice.
    values = {"x": np.ones(8), "idx": np.arange(8)[::-1].copy(), "out": np.zeros(8)}
    instance = instantiate(nests("gather"), values)
    assert len(split_plan(instance, values, who, (0.5, 0.5)).plan.parts) == 1


def test_only_parts_that_overwrite_what_they_copy_back_write_back_early(nests):
    """matmul's parts write every element of their rows of `c` and read none: each may write
    back on its own (`SplitPlan.early`). In place (`a //= d`) or a conditional write
    (skip_negative) copies its output in too, so nothing is written until every part succeeded.
    """
    who = (Participant("dev0", FACTS), Participant("dev1", OTHER))
    m, n, p = 7, 5, 3
    cases = {"matmul": ({"a": np.ones((m, p)), "b": np.ones((p, n)), "c": np.zeros((m, n)),
                         "m": m, "n": n, "p": p}, {0, 1}),
             "divmod_i64": ({"a": np.arange(9), "b": np.ones(9, np.int64),
                             "q": np.zeros(9, np.int64), "r": np.zeros(9, np.int64)}, {0, 1}),
             "divide_in_place": ({"a": np.arange(9), "d": np.ones(9, np.int64)}, set()),
             "skip_negative": ({"x": np.ones(9), "out": np.zeros(9)}, set())}
    for name, (values, early) in cases.items():
        split = split_plan(instantiate(nests(name), values), values, who, (0.5, 0.5))
        assert len(split.plan.parts) == 2 and split.early == early, name


def test_costs_count_a_whole_input_as_fixed(nests):
    """matmul: `b` moves whole for any share (fixed), `a` and `c` by rows (with the share)."""
    m = n = p = 64
    values = {"a": np.ones((m, p)), "b": np.ones((p, n)), "c": np.zeros((m, n)), "m": m, "n": n,
              "p": p}
    instance = instantiate(nests("matmul"), values)
    who = (Participant("dev0", FACTS), Participant(OPENMP, None))
    costs, openmp_s = participant_costs(instance, values, who)
    per_byte = plan.STAGING_SLOWDOWN / 20e9     # over the bandwidth
    b_bytes = p * n * 8
    assert costs[0].fixed_s == pytest.approx(b_bytes * per_byte + plan.LAUNCH_OVERHEAD, rel=0.2)
    assert costs[1].fixed_s == 0.0 and costs[1].alone_s == pytest.approx(openmp_s)


def test_shares_move_only_when_the_calls_win_back_a_new_preparation():
    """A 10 % imbalance of 1 ms calls saves about 0.05 ms a call: not worth preparing new parts
    for 1 s, worth it for 0.1 ms."""
    costs = (Cost("a", 0.0, 1.0, 1.0), Cost("b", 0.0, 1.0, 1.0))
    for prepare_s, expected in ((1.0, (0.5, 0.5)), (1e-4, None)):
        balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", forced=True)
        balance.record((0.5, 0.5), (0.0009, 0.0011), 0.0011, prepare_s=prepare_s)
        assert (balance.shares == expected) if expected else balance.shares[0] > 0.53


def test_the_trial_counts_its_fastest_call():
    """The first call alone meets a busy spell (50 ms): the second (1 ms) decides for alone."""
    costs = (Cost("a", 0.0, 0.002, 0.002), Cost("b", 0.0, 0.002, 0.002))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    for _ in range(2):      # settled on the second call at its shares
        balance.record(balance.next_shares(), (0.002, 0.002), 0.002)
    assert balance.trial is not None
    for total in (0.050, 0.001):
        x = balance.next_shares()
        balance.record(x, [total if s else 0.0 for s in x], total)
    assert sorted(balance.shares) == [0.0, 1.0] and "does not pay" in balance.why


def test_one_busy_call_does_not_decide():
    """The split's one call at its shares meets a busy spell (both participants 5x slower, as a
    busy host makes them): nothing is decided on it; the next call is normal, and the split's
    faster call is what the trial of the fastest alone is compared with, so the split is
    kept."""
    costs = (Cost("a", 0.0, 0.010, 0.010), Cost("b", 0.0, 0.010, 0.010))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", doubtful=True)
    balance.record((0.5, 0.5), (0.025, 0.025), 0.025)       # a busy spell
    assert balance.trial is None and not balance.settled
    assert "one more" in balance.history[-1].note
    balance.record((0.5, 0.5), (0.005, 0.005), 0.005)
    assert balance.trial is not None and balance.split_s == 0.005
    for _ in range(2):
        x = balance.next_shares()
        balance.record(x, [0.010 if s else 0.0 for s in x], 0.010)
    assert balance.shares == (0.5, 0.5) and "the split pays" in balance.why


def test_settled_shares_move_only_when_two_calls_in_a_row_say_so():
    """Settled at 0.5 / 0.5: one call where b met a quick spell (twice as fast) proposes a
    move, and the next, normal call does not confirm it (by its own times, though the fastest
    of the last two calls still has the spell); two such calls in a row move the shares."""
    costs = (Cost("a", 0.0, 0.010, 0.010), Cost("b", 0.0, 0.010, 0.010))
    balance = Balance(("a", "b"), costs, (0.5, 0.5), "estimate", forced=True)
    for _ in range(2):
        balance.record((0.5, 0.5), (0.005, 0.005), 0.005)
    assert balance.settled
    balance.record((0.5, 0.5), (0.005, 0.0025), 0.005)
    assert balance.shares == (0.5, 0.5) and "one more call" in balance.history[-1].note
    balance.record((0.5, 0.5), (0.005, 0.005), 0.005)
    assert balance.shares == (0.5, 0.5) and balance.proposed is None, balance.describe()
    for _ in range(3):
        balance.record((0.5, 0.5), (0.005, 0.0025), 0.005)
        if balance.shares != (0.5, 0.5):
            break
    assert balance.shares[1] > 0.6, balance.describe()
