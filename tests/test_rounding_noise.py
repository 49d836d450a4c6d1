"""Rounding noise never flips a discrete choice (issue 24 item 1): one property test per place.

Each property builds inputs that hold exact ties in exact arithmetic (duplicated items or cases, scores
``k / 10`` reached by different float routes such as ``0.1 + 0.2`` against ``0.3``, equal classifiers,
equal ratings), perturbs them by relative noise ``x * (1 + 1e-12 u)`` with ``u ~ U[-1, 1]``, and asserts
that the discrete outcome (item chosen, order, ranks, anchors, predictions, rates, MLC cases) is the one
exact arithmetic gives, or the unperturbed run's, and that the numbers move by no more than the noise.

Each property must be able to fail: :func:`test_the_property_fails_when_the_tie_rule_is_bypassed` swaps
one tie helper at a time, in the module that uses it, for plain numpy (``argmax``, ``argsort``, ``>``,
``floor``, ``rankdata``) and checks that the property then fails on some of a few dozen seeds. The
expected outcomes come from integers (exact arithmetic) or from the definition applied to them, never
from irtbridge on the noisy input.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from irtbridge.decodirt.tournaments import order_datasets, tournament, validity_check
from irtbridge.cat import FixedLengthStopper, MaxInfoSelector, RandomesqueSelector, UrrySelector, simulate_cat
from irtbridge.hardness import hardness_table, instance_cost_curves, positive_rate
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import select_anchors
from irtbridge.matches import round_robin
from irtbridge.mlc.difficulty import difficulty_bins
from irtbridge.mlc.result import CAN_DECIDE, mlc_decision
from irtbridge.mlc.staircase import run_mlc_cat
from irtbridge.rankstats import friedman, nemenyi
from irtbridge.rating import glicko2

NOISE = 1e-12
SEEDS = st.integers(0, 2**32 - 1)
PROPERTY = settings(max_examples=20, deadline=None, derandomize=True)


def jitter(x, rng: np.random.Generator) -> np.ndarray:
    """``x * (1 + 1e-12 u)``, ``u ~ U[-1, 1]`` elementwise."""
    x = np.asarray(x, dtype=float)
    return x * (1.0 + NOISE * rng.uniform(-1.0, 1.0, x.shape))


def tenths(k: np.ndarray, rng: np.random.Generator, denominator: int = 10) -> np.ndarray:
    """``k / denominator`` reached by a random float route (``(k - j)/d + j/d``): equal in exact arithmetic,
    not always in the last bits."""
    k = np.asarray(k)
    j = rng.integers(0, 4, k.shape)
    return (k - j) / denominator + j / denominator


# --------------------------------------------------------------------------------------------------
# the properties, one per place (each raises AssertionError when a choice flips)
# --------------------------------------------------------------------------------------------------


def check_cat_selectors(seed: int) -> None:
    """irtbridge/cat/selectors.py: a bank where every item appears twice."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    distinct = 6
    a = rng.uniform(0.6, 2.4, distinct)
    b = rng.normal(0.0, 1.0, distinct)
    twice = rng.permutation(np.repeat(np.arange(distinct), 2))
    items = pd.DataFrame({"a": a[twice], "b": b[twice]}, index=[f"i{j}" for j in range(twice.size)])
    noisy = items.apply(lambda col: jitter(col, noise))
    clean_bank, noisy_bank = as_item_bank(items, "2PL"), as_item_bank(noisy, "2PL")

    n = 40
    theta = rng.normal(0.0, 1.2, n)
    # the item locations themselves: Urry's distance to two copies is zero, up to the noise
    theta[: n // 4] = b[rng.integers(0, distinct, n // 4)]
    unavailable = rng.random((n, twice.size)) < 0.3
    for selector in (MaxInfoSelector(), UrrySelector(), RandomesqueSelector(3)):
        picks = [
            selector.select(bank, t, unavailable, np.random.default_rng(seed))
            for bank, t in ((clean_bank, theta), (noisy_bank, jitter(theta, noise)))
        ]
        np.testing.assert_array_equal(picks[1], picks[0], err_msg=type(selector).__name__)
        if not isinstance(selector, RandomesqueSelector):
            # of two available copies the first in bank order, as in exact arithmetic
            for row, pick in enumerate(picks[0]):
                earlier = (twice[:pick] == twice[pick]) & ~unavailable[row, :pick]
                assert pick < 0 or not earlier.any(), (type(selector).__name__, row)

    # a whole post-hoc CAT: copies answered differently, so a flip would change the trajectory
    responses = (rng.random((n, twice.size)) < 0.5).astype(float)
    runs = [
        simulate_cat(bank, responses=responses, selector=MaxInfoSelector(), stopper=FixedLengthStopper(6),
                     random_state=seed)
        for bank in (clean_bank, noisy_bank)
    ]
    np.testing.assert_array_equal(runs[1].items, runs[0].items)
    np.testing.assert_allclose(runs[1].estimates["theta"], runs[0].estimates["theta"], rtol=1e-9, atol=1e-9)


def check_mlc(seed: int) -> None:
    """irtbridge/mlc/: nearest case of the staircase, difficulty bins, decision rule."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)

    # the staircase on a pool where every difficulty appears twice or three times
    base = np.round(rng.normal(0.0, 1.0, 14), 2)
    d = rng.permutation(np.repeat(base, rng.integers(2, 4, base.size)))
    ids = [f"c{i}" for i in range(d.size)]
    right = dict(zip(ids, rng.random(d.size) < 1.0 / (1.0 + np.exp(3.0 * d))))
    runs = [run_mlc_cat(pd.Series(x, index=ids), right.__getitem__, random_state=seed) for x in (d, jitter(d, noise))]
    assert runs[1].trajectory["case"].tolist() == runs[0].trajectory["case"].tolist()
    assert (runs[1].cases_used, runs[1].stop) == (runs[0].cases_used, runs[0].stop)
    # of the cases of equal difficulty not given yet, the staircase gives the first in pool order
    pool = pd.Series(d, index=ids)
    given = runs[0].trajectory["case"].tolist()
    for step, case in enumerate(given):
        same = [c for c in ids if pool[c] == pool[case] and c not in given[:step]]
        assert case == same[0], (step, case, same)
    np.testing.assert_allclose(runs[1].mlc, runs[0].mlc, rtol=1e-9, atol=1e-9)

    # bins: cdi = t * z with z half-integers and width * sd(cdi) = t in exact arithmetic, so every case sits
    # on a bin edge and belongs to the bin above it, bin z + 1/2
    z = rng.integers(-5, 5, 30) + 0.5
    t = rng.uniform(0.3, 3.0)
    width = 1.0 / np.std(z, ddof=1)
    for cdi in (t * z, jitter(t * z, noise)):
        np.testing.assert_array_equal(difficulty_bins(cdi, width=width).to_numpy(), (z + 0.5).astype(np.int64))

    # the decision rule: difficulties equal to their class's MLC (reached by another float route) decide
    k = rng.integers(-90, 90, 2)
    mlc = {0: float(tenths(k[0], rng, 100)), 1: float(tenths(k[1], rng, 100))}
    predicted = rng.integers(0, 2, 20)
    cdi = np.where(predicted == 1, -k[1] / 100, k[0] / 100)
    for c, m in ((cdi, mlc), (jitter(cdi, noise), {c: float(jitter(v, noise)) for c, v in mlc.items()})):
        assert (mlc_decision(c, predicted, m) == CAN_DECIDE).all()


def check_tournaments(seed: int) -> None:
    """irtbridge/decodirt/tournaments.py: dataset order, validity ranks, tournament ranks."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)

    # dataset orders: diagnostics k / 10 with repeats; the exact order is the stable sort of the integers
    n = 11
    k_mean, k_sd = rng.integers(0, 5, n), rng.integers(0, 4, n)
    names = [f"d{i:02d}" for i in range(n)]
    diag = pd.DataFrame({"difficulty_mean": jitter(tenths(k_mean, rng), noise),
                         "difficulty_sd": jitter(tenths(k_sd, rng), noise), "status": "ok"}, index=names)
    assert order_datasets(diag, "difficulty") == [names[i] for i in np.argsort(k_mean, kind="stable")]
    by_sd = [names[i] for i in np.argsort(k_sd, kind="stable")]
    half = int(np.ceil(n / 2))
    assert order_datasets(diag, "difficulty_sd_low") == by_sd[:half]
    assert order_datasets(diag, "difficulty_sd_high") == by_sd[n - half:]

    # validity: the anchors tie with other players; ranks from the integers
    kv = rng.integers(0, 4, 7)
    players = ["optimal", "pessimal"] + [f"m{j}" for j in range(5)]
    v = validity_check(pd.Series(jitter(tenths(kv, rng), noise), index=players))
    assert v.optimal_rank == 1 + int((kv > kv[0]).sum())
    assert v.pessimal_rank == len(kv) - int((kv < kv[1]).sum())

    # a tournament where some players copy another: copies share their rank in every period
    k, origin = _equal_players(rng)
    cols = [f"p{j}" for j in range(k.shape[1])]
    clean = tournament(pd.DataFrame(k / 10, index=names[: k.shape[0]], columns=cols))
    noisy = tournament(pd.DataFrame(jitter(tenths(k, rng), noise), index=names[: k.shape[0]], columns=cols),
                       tau=float(jitter(0.5, noise)))
    rank = noisy.ratings.set_index("player")["rank"]
    pd.testing.assert_series_equal(rank.sort_index(), clean.ratings.set_index("player")["rank"].sort_index())
    np.testing.assert_array_equal(noisy.history["rank"], clean.history["rank"])
    for src in set(origin):
        group = [cols[j] for j, o in enumerate(origin) if o == src]
        assert rank[group].nunique() == 1
        assert noisy.history[noisy.history["player"].isin(group)].groupby("period")["rank"].nunique().eq(1).all()


def check_round_robin(seed: int) -> None:
    """irtbridge/matches.py: draws at tolerance 0 and at a difference of exactly the tolerance."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    k = rng.integers(0, 8, (6, 5))
    scores = pd.DataFrame(jitter(tenths(k, rng), noise), columns=list("ABCDE"))
    first, second = np.triu_indices(5, k=1)
    for tol_k in (0, 1, 2):
        games = round_robin(scores, tolerance=tol_k / 10)
        gap = (k[:, first] - k[:, second]).ravel()
        expected = np.where(np.abs(gap) <= tol_k, 0.5, np.where(gap > 0, 1.0, 0.0))
        np.testing.assert_array_equal(games["score"].to_numpy(), expected, err_msg=f"tolerance {tol_k / 10}")


def check_rankstats(seed: int) -> None:
    """irtbridge/rankstats.py: Friedman ranks (and statistic), Nemenyi order and groups."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    k = rng.integers(0, 6, (8, 4))
    k = np.column_stack([k, k[:, 1]])  # a classifier equal to another
    cols = ["a", "b", "c", "d", "e"]
    exact = pd.DataFrame(k / 10, columns=cols)
    noisy = pd.DataFrame(jitter(tenths(k, rng), noise), columns=cols)
    expected_ranks = stats.rankdata(-k, axis=1)  # integers: exact
    fr = friedman(noisy)
    np.testing.assert_array_equal(fr.ranks.to_numpy(), expected_ranks)
    np.testing.assert_array_equal(fr.average_ranks.to_numpy(), expected_ranks.mean(axis=0))
    peer = stats.friedmanchisquare(*k.T)
    assert fr.statistic == pytest.approx(peer.statistic, rel=1e-12)
    nm_exact, nm_noisy = nemenyi(exact), nemenyi(noisy)
    assert nm_noisy.average_ranks.index.tolist() == nm_exact.average_ranks.index.tolist()
    assert nm_noisy.groups == nm_exact.groups
    pd.testing.assert_frame_equal(nm_noisy.significant, nm_exact.significant)
    pd.testing.assert_frame_equal(nm_noisy.pvalues, nm_exact.pvalues, rtol=1e-12, atol=0)


def _equal_players(rng: np.random.Generator, periods: int = 6, distinct: int = 4) -> tuple[np.ndarray, list[int]]:
    """Integer scores, periods x players, where some players copy another: equal records."""
    k = rng.integers(0, 6, (periods, distinct))
    copies = rng.integers(0, distinct, distinct - 1)
    return np.column_stack([k, k[:, copies]]), list(range(distinct)) + copies.tolist()


def check_glicko2(seed: int) -> None:
    """irtbridge/rating.py: the final order of players whose ratings are equal in exact arithmetic."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    k, origin = _equal_players(rng, periods=8, distinct=5)
    names = [f"p{j}" for j in range(k.shape[1])]
    matches = round_robin(pd.DataFrame(k, columns=names))  # integer scores: the games are exact
    clean = glicko2(matches)
    for _ in range(3):
        # the same games in another row order (which glicko2 documents as irrelevant) sum each player's
        # terms in another order: copies' ratings then differ in their last bits now and then
        shuffled = matches.iloc[rng.permutation(len(matches))].reset_index(drop=True)
        noisy = glicko2(shuffled, tau=float(jitter(0.5, noise)), init=tuple(jitter([1500.0, 350.0, 0.06], noise)))
        np.testing.assert_allclose(noisy.ratings["rating"], clean.ratings["rating"], rtol=1e-9)
        order = noisy.ratings.index.tolist()
        assert order == clean.ratings.index.tolist()
        # copies of one player (equal records) keep the players' sorted order
        for src in set(origin):
            group = sorted(names[j] for j, o in enumerate(origin) if o == src)
            assert [p for p in order if p in group] == group


def check_hardness(seed: int) -> None:
    """irtbridge/hardness/_curves_core.py: positive rates, sf/sd predictions, hardness and cost curves."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    n = 25
    y = rng.integers(0, 2, n)
    k = rng.integers(0, 11, (3, n))
    exact = k / 10
    noisy = np.clip(jitter(tenths(k, rng), noise), 0.0, 1.0)
    for row in range(3):
        rate = positive_rate(noisy[row])
        np.testing.assert_array_equal(rate["rate"], (k[row][None, :] <= k[row][:, None]).mean(axis=1))
        np.testing.assert_array_equal(rate["previous_rate"], (k[row][None, :] < k[row][:, None]).mean(axis=1))
    table_exact, table_noisy = hardness_table(y, exact), hardness_table(y, noisy)
    for method in ("sf", "rd", "ru"):
        np.testing.assert_array_equal(table_noisy[method], table_exact[method], err_msg=method)
    for method in ("sd", "su"):
        np.testing.assert_allclose(table_noisy[method], table_exact[method], rtol=0, atol=1e-9, err_msg=method)
    grid = np.arange(11) / 10
    for method in ("sf", "sd", "rd", "ru"):
        curves = [instance_cost_curves(y, s, method=method, c=grid) for s in (exact, noisy)]
        pd.testing.assert_frame_equal(curves[1], curves[0], check_exact=True, obj=method)
    # sd predicts class 1 at cost c only when s > c in exact arithmetic: the curve of a class-0 instance is
    # 2c [k > j], computed here from the integers
    sd = instance_cost_curves(y, noisy[0], method="sd", c=grid).to_numpy()
    zero = y == 0
    np.testing.assert_allclose(sd[zero], 2 * grid[None, :] * (k[0][zero, None] > np.arange(11)[None, :]), atol=1e-15)


def check_anchors(seed: int) -> None:
    """irtbridge/leaderboard/anchors.py: stratified and cluster anchors of a bank with repeated values."""
    rng = np.random.default_rng(seed)
    noise = np.random.default_rng(seed + 1)
    n = 16
    ka = rng.integers(5, 12, n)
    kb = rng.integers(-15, 16, n)
    dup = rng.integers(0, n, 4)  # four exact copies of other items
    ka, kb = np.concatenate([ka, ka[dup]]), np.concatenate([kb, kb[dup]])
    names = [f"q{i:02d}" for i in range(ka.size)]
    clean = pd.DataFrame({"a": tenths(ka, rng), "b": tenths(kb, rng)}, index=names)
    noisy = clean.apply(lambda col: jitter(col, noise))
    banks = [as_item_bank(frame, "2PL") for frame in (clean, noisy)]
    n_anchors = int(rng.integers(2, 7))
    # stratified, by its definition on the integers: strata of the stable difficulty order, the first most
    # discriminating item of each
    order = np.argsort(kb, kind="stable")
    expected = [names[s[np.argmax(ka[s])]] for s in np.array_split(order, n_anchors)]
    for bank in banks:
        assert select_anchors(bank, n_anchors, "stratified") == expected
    # cluster: the medoid nearest each centre; of two copies the first
    chosen = [select_anchors(bank, n_anchors, "cluster", seed=seed) for bank in banks]
    assert chosen[1] == chosen[0]
    for copy, original in enumerate(dup):
        assert names[n + copy] not in chosen[0] or names[original] in chosen[0]


# --------------------------------------------------------------------------------------------------
# the property tests
# --------------------------------------------------------------------------------------------------


@PROPERTY
@given(seed=SEEDS)
def test_cat_selectors_pick_the_same_item_under_noise(seed):
    check_cat_selectors(seed)


@PROPERTY
@given(seed=SEEDS)
def test_mlc_cases_bins_and_decisions_do_not_move_under_noise(seed):
    check_mlc(seed)


@PROPERTY
@given(seed=SEEDS)
def test_dataset_orders_validity_and_tournament_ranks_do_not_move_under_noise(seed):
    check_tournaments(seed)


@PROPERTY
@given(seed=SEEDS)
def test_round_robin_draws_do_not_move_under_noise(seed):
    check_round_robin(seed)


@PROPERTY
@given(seed=SEEDS)
def test_friedman_and_nemenyi_ranks_do_not_move_under_noise(seed):
    check_rankstats(seed)


@PROPERTY
@given(seed=SEEDS)
def test_glicko2_final_order_does_not_move_under_noise(seed):
    check_glicko2(seed)


@PROPERTY
@given(seed=SEEDS)
def test_hardness_rates_and_thresholds_do_not_move_under_noise(seed):
    check_hardness(seed)


@PROPERTY
@given(seed=SEEDS)
def test_anchors_do_not_move_under_noise(seed):
    check_anchors(seed)


# --------------------------------------------------------------------------------------------------
# each property can fail: plain numpy in place of one tie helper breaks it
# --------------------------------------------------------------------------------------------------


def _plain_snap(values, *, scale=None):
    return np.array(values, dtype=float)


def _plain_argsort(values, *, descending=False, scale=None):
    x = np.asarray(values, dtype=float)
    return np.argsort(-x if descending else x, axis=-1, kind="stable")


def _plain_argmax(values, *, scale=None):
    return np.argmax(np.asarray(values, dtype=float), axis=-1)


def _plain_argmin(values, *, scale=None):
    return np.argmin(np.asarray(values, dtype=float), axis=-1)


def _plain_rank(values, *, method="average", descending=False, scale=None):
    x = np.asarray(values, dtype=float)
    return stats.rankdata(-x if descending else x, method=method, axis=-1).astype(float)


def _plain_greater(a, b, *, scale=None):
    return np.asarray(a, dtype=float) > np.asarray(b, dtype=float)


def _plain_floor(values, *, scale=None):
    return np.floor(np.asarray(values, dtype=float))


PLAIN = {"snap": _plain_snap, "stable_argsort": _plain_argsort, "tie_argmax": _plain_argmax,
         "tie_argmin": _plain_argmin, "tie_rank": _plain_rank, "tie_greater": _plain_greater, "tie_floor": _plain_floor}

# (property, module that uses the helper, helper): every use of a tie helper that a property reaches
BYPASSES = [
    (check_cat_selectors, "irtbridge.cat.selectors", "tie_argmax"),
    (check_cat_selectors, "irtbridge.cat.selectors", "stable_argsort"),
    (check_mlc, "irtbridge.cat.selectors", "tie_argmax"),  # the staircase's nearest case (UrrySelector)
    (check_mlc, "irtbridge.mlc.difficulty", "tie_floor"),
    (check_mlc, "irtbridge.mlc.result", "tie_greater"),
    (check_tournaments, "irtbridge.decodirt.tournaments", "stable_argsort"),
    (check_tournaments, "irtbridge.decodirt.tournaments", "tie_greater"),
    (check_tournaments, "irtbridge.decodirt.tournaments", "tie_rank"),
    (check_round_robin, "irtbridge.matches", "tie_greater"),
    (check_rankstats, "irtbridge.rankstats", "tie_rank"),
    (check_glicko2, "irtbridge.rating", "stable_argsort"),
    (check_hardness, "irtbridge.hardness._curves_core", "snap"),
    (check_hardness, "irtbridge.hardness._curves_core", "tie_greater"),
    (check_anchors, "irtbridge.leaderboard.anchors", "stable_argsort"),
    (check_anchors, "irtbridge.leaderboard.anchors", "tie_argmax"),
    (check_anchors, "irtbridge.leaderboard.anchors", "tie_argmin"),
]


@pytest.mark.parametrize(("check", "module", "helper"), BYPASSES,
                         ids=[f"{c.__name__[6:]}-{m.rsplit('.', 1)[1]}.{h}" for c, m, h in BYPASSES])
@pytest.mark.slow
def test_the_property_fails_when_the_tie_rule_is_bypassed(monkeypatch, check: Callable[[int], None], module, helper):
    import importlib

    monkeypatch.setattr(importlib.import_module(module), helper, PLAIN[helper])
    failed = 0
    for seed in range(30):
        try:
            check(seed)
        except AssertionError:
            failed += 1
    assert failed > 0, f"{check.__name__} passes on 30 seeds with plain numpy in place of {module}.{helper}"
