"""The two-phase design (issue 39 item 4): its probabilities, its estimators' bias and coverage on simulated
data with the truth known (a right 2PL, a misspecified one, a new model stronger than every calibration
model), its plan file and its one-line errors."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard.estimators import IRTParameters
from irtbridge.leaderboard.twophase import (inclusion_probabilities, load_plan, plan_phase_two,
                                            twophase_estimate)

J = 400
RNG = np.random.default_rng(0)
A, B = RNG.uniform(0.5, 2.5, J), RNG.normal(size=J)
NAMES = [f"q{j}" for j in range(J)]


def _p(theta):
    return 1 / (1 + np.exp(-A * (theta - B)))


@pytest.fixture(scope="module")
def bank():
    """60 calibration models of ability around -1 (weaker than the new models below), the true 2PL."""
    theta = RNG.normal(-1, 0.7, size=(60, 1))
    x = (RNG.random((60, J)) < _p(theta)) * 1.0
    return pd.DataFrame(x, columns=NAMES), IRTParameters(tuple(NAMES), A, B)


def _new_model(theta, misspecified, seed):
    p = _p(theta)
    if misspecified:  # guessing the 2PL does not have, and a block of items answered against it
        p = 0.25 + 0.75 * p
        p[:80] = 1 - p[:80]
    return pd.Series((np.random.default_rng(seed).random(J) < p) * 1.0, index=NAMES, name="new")


def test_probabilities_sum_to_n2_follow_the_uncertainty_and_keep_a_floor():
    p = np.concatenate([np.full(50, 0.5), np.full(50, 0.02)])
    pi, scale = inclusion_probabilities(p, 20, floor=0.2)
    s = np.sqrt(p * (1 - p))
    expected = 20 * (0.8 * s / s.sum() + 0.2 / 100)  # no item reaches 1 here: the closed form
    assert pi == pytest.approx(expected, rel=1e-12) and pi.sum() == pytest.approx(20)
    assert pi.min() >= 0.2 * 20 / 100 and scale * (0.8 * s[0] / s.sum() + 0.002) == pytest.approx(pi[0])
    capped, _ = inclusion_probabilities(np.array([0.5, 0.5, 0.001, 0.001, 0.001]), 3, floor=0.1)
    assert capped[:2].tolist() == [1.0, 1.0] and capped.sum() == pytest.approx(3) and (capped > 0).all()
    with pytest.raises(ValidationError, match="n2"):
        inclusion_probabilities(p, 101)


@pytest.mark.parametrize("theta, misspecified", [(0.0, False), (0.0, True), (2.5, False), (2.5, True)],
                         ids=["2PL", "misspecified", "stronger-than-all", "stronger-and-misspecified"])
@pytest.mark.slow
def test_unbiased_by_design_and_covers(bank, theta, misspecified):
    """Over repeated designs (phase 1: 30 random items; phase 2: 30 expected), the difference estimator's mean
    is the model's accuracy on all items within Monte Carlo error (unbiased whatever the 2PL's fit), and both
    intervals cover 0.90-0.99 of the time; the GREG estimator's bias is below 0.01."""
    draws = {"difference": [], "greg": []}
    truths = []
    for s in range(3):
        y = _new_model(theta, misspecified, s)
        truths.append(y.mean())
        for r in range(60):
            first = np.sort(np.random.default_rng([r, s]).choice(J, 30, replace=False))
            plan = plan_phase_two(bank, y.iloc[first], 30, seed=r)
            for method in draws:
                out = twophase_estimate(plan, y, method=method, bank=bank).iloc[0]
                draws[method].append((out["accuracy"] - y.mean(), out["lower"] <= y.mean() <= out["upper"]))
    diff = np.array(draws["difference"])
    assert abs(diff[:, 0].mean()) < 3 * diff[:, 0].std() / np.sqrt(len(diff))
    assert abs(np.array(draws["greg"])[:, 0].mean()) < 0.01
    for method, rows in draws.items():
        assert 0.90 <= np.mean([h for _, h in rows]) <= 0.99, method


def test_plan_file_round_trip_and_estimate_from_it(bank, tmp_path):
    y = _new_model(0.5, False, 1)
    plan = plan_phase_two(bank, y.iloc[:25], 25, seed=3)
    assert set(plan.phase2).isdisjoint(plan.phase1) and plan.pi[:25].sum() == 0
    back = load_plan(plan.save(tmp_path / "plan.json"))
    assert back.phase2 == plan.phase2 and np.array_equal(back.pi, plan.pi) and back.scale == plan.scale
    direct = twophase_estimate(plan, y[list(plan.phase2)], method="difference")
    from_file = twophase_estimate(tmp_path / "plan.json", y, method="difference")
    assert direct.equals(from_file)
    row = direct.iloc[0]
    assert row["lower"] <= row["accuracy"] <= row["upper"] and row["n_phase1"] == 25


def test_one_line_errors(bank, tmp_path):
    y = _new_model(0.0, False, 0)
    with pytest.raises(ValidationError, match="at least 3"):
        plan_phase_two(bank, y.iloc[:2], 10)
    with pytest.raises(ValidationError, match="n2"):
        plan_phase_two(bank, y.iloc[:10], J)
    with pytest.raises(ValidationError, match="not items of the bank"):
        plan_phase_two(bank, pd.Series([1.0, 0.0, 1.0], index=["x", "q1", "q2"]), 10)
    with pytest.raises(ValidationError, match="holds 2 models"):
        plan_phase_two(bank, pd.DataFrame([y.iloc[:10], y.iloc[:10]]), 10)
    plan = plan_phase_two(bank, y.iloc[:10], 10, seed=1)
    with pytest.raises(ValidationError, match="phase-2 item"):
        twophase_estimate(plan, y.iloc[:10], method="difference")
    with pytest.raises(ValidationError, match="bank="):
        twophase_estimate(plan, y)
    flipped = y.copy()
    flipped.iloc[0] = 1 - flipped.iloc[0]
    with pytest.raises(ValidationError, match="disagree"):
        twophase_estimate(plan, flipped, method="difference")
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValidationError, match="not an irtbridge two-phase plan"):
        load_plan(tmp_path / "bad.json")
