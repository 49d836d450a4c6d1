"""The leaderboard report's numbers (issue 32 item 4), against references computed here, not by irtbridge.

* Wilson's interval: Newcombe (1998, Table I, method 3) to 4 decimals, and the root of Wilson's defining
  equation |p_hat - p| = z sqrt(p (1 - p) / n) found by bisection;
* item flags on hand-built matrices: an item everyone gets right, one everyone gets wrong, one answered
  once; a reversed answer key on a simulated 2PL item gives negative discrimination and a negative
  item-rest correlation, and nothing else is flagged;
* abilities: recovered (rank correlation with the simulated truth) and with the sign fixed when the fit
  comes out mirrored (the mirror image of the 2PL has the same likelihood);
* the predicted accuracy of a model with unanswered items and its interval: the posterior integrals by
  adaptive quadrature (scipy.integrate.quad) on the fitted items;
* the test information a^2 P (1 - P) in closed form, and its half-peak range b -/+ 1.7627 / a for one item;
* saturation and the per-task table counted by hand.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, optimize, stats

import irtbridge.calibration
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import leaderboard_report, read_leaderboard_input
from irtbridge.leaderboard.report import _information
from irtbridge.leaderboard.diagnostics import (information_curve, informative_range, item_statistics, saturation,
                                               wilson_interval)

Z = 1.959963984540054


def _simulate(n=300, J=25, seed=7):
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.uniform(1.0, 2.0, J), rng.uniform(-1.5, 1.5, J)
    X = (rng.random((n, J)) < 1 / (1 + np.exp(-a * (theta[:, None] - b)))).astype(float)
    frame = pd.DataFrame(X, index=[f"m{i}" for i in range(n)], columns=[f"q{j}" for j in range(J)])
    return frame, theta


@pytest.fixture(scope="module")
def reversed_key():
    frame, theta = _simulate()
    frame["q3"] = 1.0 - frame["q3"]  # the key of q3 is wrong: right answers scored 0
    frame["all_right"], frame["all_wrong"] = 1.0, 0.0
    frame["once"] = np.nan
    frame.iloc[0, frame.columns.get_loc("once")] = 1.0
    return frame, theta, leaderboard_report(frame)


# --- Wilson ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("k, n, lo, hi", [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605),
                                          (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)])
def test_wilson_matches_newcombe_1998(k, n, lo, hi):
    got = wilson_interval(k, n)
    assert round(float(got[0]), 4) == lo and round(float(got[1]), 4) == hi


@pytest.mark.parametrize("k, n", [(3, 7), (40, 50), (120, 120)])
def test_wilson_solves_its_defining_equation(k, n):
    p_hat = k / n
    f = lambda p: (p_hat - p) ** 2 - Z**2 * p * (1 - p) / n  # noqa: E731
    # p_hat itself is a root only where the interval ends at 0 or 1: bracket the other root off it
    lo = optimize.brentq(f, 0.0, min(p_hat, 1 - 1e-12)) if k > 0 else 0.0
    hi = optimize.brentq(f, max(p_hat, 1e-12), 1.0) if k < n else 1.0
    got = wilson_interval(k, n)
    assert abs(float(got[0]) - lo) < 1e-10 and abs(float(got[1]) - hi) < 1e-10


# --- item flags -----------------------------------------------------------------------------------------

def test_constant_and_once_answered_items_flagged_by_hand():
    X = np.array([[1, 0, 1, np.nan, 1], [1, 0, 0, np.nan, 0], [1, 0, 1, 0, np.nan]], dtype=float)
    table = item_statistics(X, ["right", "wrong", "mixed", "once", "two"], None)
    assert table["flag"].tolist() == ["everyone right", "everyone wrong", "", "answered once", ""]
    assert table["n_answered"].tolist() == [3, 3, 3, 1, 2]
    assert table["share_right"].tolist() == [1.0, 0.0, 2 / 3, 0.0, 0.5]


def test_reversed_key_flagged_and_nothing_else(reversed_key):
    frame, _, rep = reversed_key
    flagged = rep.items[rep.items["flag"] != ""]["flag"].to_dict()
    assert flagged == {"q3": "negative discrimination", "all_right": "everyone right",
                       "all_wrong": "everyone wrong", "once": "answered once"}
    assert rep.items.loc["q3", "a"] < -0.5
    # the model-free check agrees: better models (by their other items) fail q3 more often
    x = frame["q3"].to_numpy()
    rest = frame.drop(columns=["q3", "all_right", "all_wrong", "once"]).mean(axis=1).to_numpy()
    assert rep.items.loc["q3", "rest_correlation"] < 0
    # the rest score also counts the two constant items and "once" where answered: the same correlation
    rest_all = (frame.drop(columns="q3").sum(axis=1) / frame.drop(columns="q3").notna().sum(axis=1)).to_numpy()
    assert rep.items.loc["q3", "rest_correlation"] == pytest.approx(np.corrcoef(x, rest_all)[0, 1], abs=1e-10)
    assert np.corrcoef(x, rest)[0, 1] < 0
    assert rep.facts["flags"] == {"everyone_right": 1, "everyone_wrong": 1, "negative_discrimination": 1, "few_answers": 0,
                                  "answered_once": 1}
    # constant and once-answered items are not fitted
    assert rep.items.loc[["all_right", "all_wrong", "once"], "a"].isna().all()
    assert rep.facts["fit"]["n_items"] == 25
    assert list(rep.flagged_items.index[:1]) == ["q3"]


# --- abilities and their sign -----------------------------------------------------------------------------

def test_abilities_recover_the_simulated_ones(reversed_key):
    frame, theta, rep = reversed_key
    est = rep.ranking["theta"].reindex(frame.index).to_numpy()
    assert stats.spearmanr(est, theta)[0] > 0.85
    observed = rep.ranking["observed_accuracy"].reindex(frame.index)
    assert rep.facts["fit"]["rank_agreement"] == pytest.approx(stats.spearmanr(est, observed)[0], abs=1e-12)
    r = rep.ranking
    np.testing.assert_allclose(r["theta_upper"] - r["theta"], Z * r["theta_se"], atol=1e-12)
    assert (np.diff(r["theta"].to_numpy()) <= 1e-12).all()  # best first
    assert r["rank"].iloc[0] == 1


def test_identical_models_share_a_rank_in_row_order():
    frame, _ = _simulate(n=120, J=15, seed=3)
    frame.loc["twin"] = frame.loc["m5"]
    frame = frame.loc[["twin"] + [m for m in frame.index if m != "twin"]]
    rep = leaderboard_report(frame)
    r = rep.ranking
    assert r.loc["twin", "rank"] == r.loc["m5", "rank"]
    assert list(r.index).index("twin") + 1 == list(r.index).index("m5")  # the earlier row first
    # the overlaps count each other: the twin's intervals are the same
    assert r.loc["twin", "overlaps"] == r.loc["m5", "overlaps"] >= 1


def test_a_mirrored_fit_is_turned_back(monkeypatch, reversed_key):
    frame, _, plain = reversed_key
    original = irtbridge.calibration.calibrate

    def mirrored(*args, **kwargs):
        fit = original(*args, **kwargs)
        items = fit.items.copy()
        items[["a", "b"]] = -items[["a", "b"]]  # the same likelihood with theta -> -theta
        return fit._replace(items=items)

    monkeypatch.setattr(irtbridge.leaderboard.report, "calibrate", mirrored)  # the name the report calls
    rep = leaderboard_report(frame)
    assert rep.facts["fit"]["sign_flipped"] is True and plain.facts["fit"]["sign_flipped"] is False
    observed = rep.ranking["observed_accuracy"]
    assert np.corrcoef(rep.ranking["theta"], observed)[0, 1] > 0.8
    np.testing.assert_allclose(rep.ranking["theta"], plain.ranking["theta"].reindex(rep.ranking.index), atol=1e-9)
    np.testing.assert_allclose(rep.items["a"], plain.items["a"], atol=1e-9, equal_nan=True)
    assert any("changed sign" in n for n in rep.notes)


# --- predicted accuracy of a model with unanswered items ---------------------------------------------------

def test_predicted_accuracy_by_quadrature():
    frame, _ = _simulate(n=200, J=20, seed=11)
    frame.iloc[0, [2, 5, 11]] = np.nan  # m0 leaves three items unanswered
    rep = leaderboard_report(frame)
    row = rep.ranking.loc["m0"]
    assert row["accuracy_kind"] == "predicted"
    items = rep.items
    x = frame.loc["m0"].to_numpy()
    seen = ~np.isnan(x)
    a, b = items["a"].to_numpy(), items["b"].to_numpy()

    def p(t):
        return 1 / (1 + np.exp(-a * (t - b)))

    def lik(t):
        pt = p(t)[seen]
        return np.prod(np.where(x[seen] == 1, pt, 1 - pt)) * stats.norm.pdf(t)

    def moment(g):
        return integrate.quad(lambda t: g(t) * lik(t), -8, 8, epsabs=1e-13, limit=200)[0]

    norm = moment(lambda t: 1.0)
    theta = moment(lambda t: t) / norm
    sd = np.sqrt(moment(lambda t: (t - theta) ** 2) / norm)
    rest = lambda t: p(t)[~seen].sum()  # noqa: E731
    mean_rest = moment(rest) / norm
    var_rest = moment(lambda t: (rest(t) - mean_rest) ** 2 + (p(t) * (1 - p(t)))[~seen].sum()) / norm
    accuracy = (np.nansum(x) + mean_rest) / len(x)
    half = Z * np.sqrt(var_rest) / len(x)
    assert row["theta"] == pytest.approx(theta, abs=2e-3)
    assert row["theta_se"] == pytest.approx(sd, abs=2e-3)
    assert row["accuracy"] == pytest.approx(accuracy, abs=1e-3)
    # the interval: Wilson's limits for the predicted accuracy on 20 items (the roots of Wilson's defining
    # equation), each side widened by the prediction's spread (MOVER, Zou & Donner 2008)

    def wilson(q):
        return (accuracy - q) ** 2 - Z**2 * q * (1 - q) / len(x)

    w_lo, w_hi = optimize.brentq(wilson, 1e-12, accuracy), optimize.brentq(wilson, accuracy, 1 - 1e-12)
    assert row["accuracy_lower"] == pytest.approx(accuracy - np.hypot(accuracy - w_lo, half), abs=1e-3)
    assert row["accuracy_upper"] == pytest.approx(accuracy + np.hypot(w_hi - accuracy, half), abs=1e-3)
    # a model that answered everything: observed accuracy, Wilson interval
    full = rep.ranking.loc["m1"]
    k = int(frame.loc["m1"].sum())
    assert full["accuracy_kind"] == "observed" and full["accuracy"] == k / 20
    lo = optimize.brentq(lambda q: (k / 20 - q) ** 2 - Z**2 * q * (1 - q) / 20, 0, k / 20)
    assert full["accuracy_lower"] == pytest.approx(lo, abs=1e-10)


def test_without_a_fit_the_ranking_is_by_observed_accuracy():
    X = pd.DataFrame({"q1": [1, 1, 0], "q2": [1, 1, 1], "q3": [0, 0, 0]}, index=["a", "b", "c"], dtype=float)
    X.loc["b", "q3"] = np.nan
    rep = leaderboard_report(X)  # one informative item: no 2PL
    assert rep.facts["fit"]["fitted"] is False and "at least 2" in rep.facts["fit"]["reason"]
    assert rep.ranking["accuracy"].to_dict() == {"b": 1.0, "a": 2 / 3, "c": 1 / 3}
    assert rep.ranking.loc["b", "accuracy_kind"] == "answered only"
    assert rep.ranking["theta"].isna().all() and rep.facts["information"] is None
    assert "No 2PL fitted" in rep.summary().as_text()


# --- information, saturation, tasks --------------------------------------------------------------------

def test_information_closed_form():
    a, b = np.array([2.0, 0.5, 1.3]), np.array([0.5, -1.0, 2.0])
    theta = np.array([-1.0, 0.5, 2.0])
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    got = information_curve(a, b, theta)
    np.testing.assert_allclose(got["information"], (a**2 * p * (1 - p)).sum(axis=1), rtol=1e-12)
    np.testing.assert_allclose(got["se"], 1 / np.sqrt((a**2 * p * (1 - p)).sum(axis=1)), rtol=1e-12)


def test_half_peak_range_of_one_item():
    # P(1 - P) >= 1/8  <=>  |theta - b| <= log((1 + sqrt(.5)) / (1 - sqrt(.5))) / a = 1.7627 / a
    half_width = np.log((1 + np.sqrt(0.5)) / (1 - np.sqrt(0.5))) / 2.0
    grid = np.linspace(-4, 4, 8001)
    got = informative_range(information_curve(np.array([2.0]), np.array([0.5]), grid))
    assert got["peak_theta"] == pytest.approx(0.5) and got["peak_information"] == pytest.approx(1.0)
    assert got["low"] == pytest.approx(0.5 - half_width, abs=1e-3)
    assert got["high"] == pytest.approx(0.5 + half_width, abs=1e-3)


def test_runaway_slopes_left_out_of_the_information_curve():
    params = pd.DataFrame({"a": [1.2, 40.0, -0.7], "b": [0.3, 1.0, -1.0]}, index=["q1", "steep", "q3"])
    theta = np.array([-1.0, 0.0, 2.5])
    curve, facts, runaway = _information(params, theta)
    assert runaway == 1 and facts["n_items"] == 2
    a, b = np.array([1.2, -0.7]), np.array([0.3, -1.0])
    t = curve["theta"].to_numpy()
    p = 1 / (1 + np.exp(-a * (t[:, None] - b)))
    np.testing.assert_allclose(curve["information"], (a**2 * p * (1 - p)).sum(axis=1), rtol=1e-12)
    assert t.min() == -4.0 and t.max() == 4.0
    assert facts["models_above"] == int((theta > facts["high"]).sum())


def test_saturation_by_hand():
    X = np.array([[1, 1, 1, 0, np.nan], [1, 1, 0, 0, 1], [1, 0, 0, 0, 0], [0, 0, 0, 0, 0]], dtype=float)
    s = saturation(X, np.array([0.75, 0.6, 0.2, 0.0]), top=2)
    # the top two (rows 0, 1) both solve items 0 and 1; item 4 only row 1 answered (right): 3 of 5
    assert s["top_models"] == [0, 1] and s["n_solved_by_top"] == 3 and s["share_solved_by_top"] == 0.6
    assert s["ceiling"] == 0.8 and s["share_unsolved"] == pytest.approx(0.2)
    assert s["best_accuracy"] == 0.75 and s["gap_to_ceiling"] == pytest.approx(0.05)


def test_tasks_from_a_long_table_by_hand():
    frame, _ = _simulate(n=120, J=12, seed=5)
    long = frame.stack().rename("score").reset_index()
    long.columns = ["model", "item", "score"]
    long.insert(1, "task", np.where(long["item"].isin([f"q{j}" for j in range(5)]), "arc", "mmlu"))
    long = long.drop(index=[3, 40]).reset_index(drop=True)  # two unanswered cells
    rep = leaderboard_report(long)
    assert list(rep.tasks.index) == ["arc", "mmlu"] and rep.tasks["n_items"].tolist() == [5, 7]
    wide = long.pivot(index="model", columns="item", values="score")
    arc = wide[[f"q{j}" for j in range(5)]].mean(axis=1)  # pandas skips NaN: accuracy on answered items
    np.testing.assert_allclose(rep.task_accuracy["arc"].reindex(arc.index), arc, rtol=1e-12)
    assert rep.tasks.loc["arc", "best_accuracy"] == pytest.approx(arc.max())
    assert rep.tasks.loc["arc", "mean_accuracy"] == pytest.approx(arc.mean())
    assert rep.items.loc["q0", "task"] == "arc"


# --- bad input: one line, before any work ----------------------------------------------------------------

def test_bad_inputs_are_one_line_errors(tmp_path, monkeypatch):
    calls = []
    monkeypatch.setattr(irtbridge.calibration, "calibrate", lambda *a, **k: calls.append(1))
    bad = tmp_path / "bad.csv"
    bad.write_text("model,q1,q2\nm1,1,0\nm2,1,2\n")
    with pytest.raises(ValidationError, match=r"line 3 \(model 'm2'\), column 'q2' is 2(\.0)?; cells must be 0, 1"):
        read_leaderboard_input([bad])
    long = tmp_path / "long.csv"
    long.write_text("model,item,score\nm1,q1,1\nm2,q1,0.4\n")
    with pytest.raises(ValidationError, match=r"line 3, column 'score' is 0.4"):
        read_leaderboard_input([long])
    with pytest.raises(ValidationError, match="at least 2"):
        leaderboard_report(pd.DataFrame({"q1": [1.0], "q2": [0.0]}, index=["only"]))
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ValidationError, match="is empty"):
        read_leaderboard_input([tmp_path / "empty.csv"])
    with pytest.raises(ValidationError, match="answered no item"):
        leaderboard_report(pd.DataFrame({"q1": [1.0, np.nan, 0.0], "q2": [0.0, np.nan, 1.0]}, index=["a", "b", "c"]))
    dup = tmp_path / "dup.csv"
    dup.write_text("model,item,score\nm1,q1,1\nm1,q1,0\nm2,q1,1\n")
    with pytest.raises(ValidationError, match="more than once"):
        read_leaderboard_input([dup])
    assert calls == []
    for err in ("line 3 (model 'm2')",):
        try:
            read_leaderboard_input([bad])
        except ValidationError as exc:
            assert err in str(exc) and "\n" not in str(exc)


def test_matrix_and_long_are_detected_by_the_header(tmp_path):
    m = tmp_path / "m.csv"
    m.write_text("model,q1,q2\nm1,1,0\nm2,,1\n")
    got = read_leaderboard_input([m])
    assert got.matrix.shape == (2, 2) and np.isnan(got.matrix.loc["m2", "q1"]) and got.tasks is None
    anon = tmp_path / "anon.csv"
    anon.write_text("q1,q2\n1,0\n0,1\n")
    assert list(read_leaderboard_input([anon]).matrix.index) == ["model 1", "model 2"]
    long = tmp_path / "long.csv"
    long.write_text("model,task,item,score\nm1,t1,0,1\nm1,t2,0,0\nm2,t1,0,0\nm2,t2,0,\n")
    got = read_leaderboard_input([long])
    assert sorted(got.matrix.columns) == ["t1/0", "t2/0"]  # the same item id under two tasks
    assert got.tasks == {"t1/0": "t1", "t2/0": "t2"} and np.isnan(got.matrix.loc["m2", "t2/0"])


def test_result_is_frozen_and_displays_from_stored_numbers(reversed_key, monkeypatch):
    import dataclasses

    _, _, rep = reversed_key
    with pytest.raises(dataclasses.FrozenInstanceError):
        rep.ranking = None
    monkeypatch.setattr(irtbridge.calibration, "calibrate", lambda *a, **k: pytest.fail("refitted on display"))
    html = rep._repr_html_()
    assert "Items to check (Rodriguez et al. 2021)" in html and "<span class='warn'>" in html
    text = rep.summary().as_text()
    assert rep.ranking.index[0] in text and f"{rep.ranking['theta'].iloc[0]:.2f}" in text
    assert rep.summary().to_dict()["best"]["model"] == rep.ranking.index[0]
