"""A tiny benchmark on a D-factor calibration (issue 42, item 3): ``build_tiny(n_factors=D)``, its bank, the CLI.

References: the D-factor IRT feature (the posterior mean of ``P_j(F)`` under ``F ~ N(0, I)``, the factors'
posterior means and covariances, the leave-one-out values) against a brute-force posterior written here on a
fine 241 x 241 grid for D = 2 with known slopes and intercepts; a D = 2 calibration whose second factor loads
on nothing against the 1-D 2PL's own predictor; the default (``n_factors=1``) against the numbers main
(890b420, before D-factor banks) gives on the trimmed ARCT matrix; the bank round trip (exact equality).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard import build_tiny, load_bank, load_tiny
from irtbridge.leaderboard._predictors import factor_predictions, irt_predictions
from irtbridge.leaderboard.estimators import calibrate_2pl, calibrate_factors, estimate_accuracy, factor_parameters

from tests.leaderboard.conftest import ARCT as DATA  # the `responses` fixture reads it


@pytest.fixture(scope="module")
def tiny2(responses):
    return build_tiny(responses.iloc[:70], 30, seed=1, n_factors=2, NCYCLES=60)


def _brute_force(A, d, seen, y, n=241):
    """The posterior of F (D = 2) on an n x n grid on [-6, 6] under N(0, I), by plain loops over the answers."""
    g = np.linspace(-6, 6, n)
    f1, f2 = np.meshgrid(g, g, indexing="ij")
    log_post = -0.5 * (f1**2 + f2**2)
    for j, yj in zip(seen, y):
        if np.isnan(yj):
            continue
        p = expit(A[j, 0] * f1 + A[j, 1] * f2 + d[j])
        log_post = log_post + (np.log(p) if yj == 1 else np.log1p(-p))
    w = np.exp(log_post - log_post.max())
    w /= w.sum()
    mean = np.array([(w * f1).sum(), (w * f2).sum()])
    cov = np.array([[(w * f1 * f1).sum(), (w * f1 * f2).sum()], [(w * f2 * f1).sum(), (w * f2 * f2).sum()]])
    cov -= np.outer(mean, mean)
    pred = np.array([(w * expit(A[j, 0] * f1 + A[j, 1] * f2 + d[j])).sum() for j in range(len(d))])
    return pred, mean, cov


def test_the_factor_feature_is_the_brute_force_posterior():
    rng = np.random.default_rng(3)
    J = 40
    A = np.column_stack([rng.uniform(0.5, 2.0, J), rng.uniform(-1.5, 1.5, J)])
    d = rng.normal(0, 1, J)
    seen = np.arange(0, J, 2)
    Y = (rng.random((3, len(seen))) < 0.6).astype(float)
    Y[1, 4] = np.nan  # an unanswered sampled item adds nothing to the likelihood
    pred, loo, mean, cov = factor_predictions(A, d, seen, Y)
    for m in range(3):
        ref_pred, ref_mean, ref_cov = _brute_force(A, d, seen, Y[m])
        np.testing.assert_allclose(pred[m], ref_pred, atol=2e-4)
        np.testing.assert_allclose(mean[m], ref_mean, atol=2e-3)
        np.testing.assert_allclose(cov[m], ref_cov, atol=2e-3)
        for i in (0, 5):  # leave-one-out: the posterior without that sampled item's answer
            y = Y[m].copy()
            y[i] = np.nan
            np.testing.assert_allclose(loo[m, i], _brute_force(A, d, seen, y)[0][seen[i]], atol=2e-4)
    assert np.isnan(loo[1, 4])


def test_a_second_factor_loading_on_nothing_is_the_2pl():
    rng = np.random.default_rng(4)
    J = 30
    a, b = rng.uniform(0.6, 1.8, J), rng.normal(0, 1, J)
    seen = np.arange(0, J, 3)
    Y = (rng.random((4, len(seen))) < 0.5).astype(float)
    one = irt_predictions(a, b, seen, Y)  # the 1-D feature on its own 121-point grid
    two = factor_predictions(np.column_stack([a, np.zeros(J)]), -a * b, seen, Y)
    np.testing.assert_allclose(two[0], one[0], atol=1e-3)
    np.testing.assert_allclose(two[1], one[1], atol=1e-3)
    np.testing.assert_allclose(two[2][:, 0], one[2], atol=2e-3)
    np.testing.assert_allclose(np.sqrt(two[3][:, 0, 0]), one[3], atol=2e-3)
    np.testing.assert_allclose(two[2][:, 1], 0.0, atol=1e-9)  # the idle factor keeps its prior
    np.testing.assert_allclose(two[3][:, 1, 1], 1.0, atol=1e-3)


def test_the_default_is_the_2pl_bank_as_before(responses):
    tiny = build_tiny(responses.iloc[:70], 30, seed=1)
    out = tiny.predict(responses.iloc[70:73][tiny.items])
    # main at 890b420 (before D-factor banks) on the same call
    before = [[-0.634002060409, 0.307607700091, 0.502918447784, 0.075066451441, 0.345378734169, 0.660458161398],
              [-0.161387170177, 0.33907917825, 0.541377332753, 0.077080910557, 0.379434477236, 0.70332018827],
              [-0.885757740579, 0.29731522302, 0.555044947632, 0.040870748078, 0.469210986015, 0.64087890925]]
    np.testing.assert_allclose(out[["theta", "theta_se", "accuracy", "accuracy_se", "lower", "upper"]].to_numpy(),
                               before, atol=1e-9)
    assert tiny.n_factors == 1 and list(out.columns)[-1] == "se"  # no factor columns
    bank = tiny.to_dict()
    assert bank["version"] == 2 and not {"n_factors", "loadings", "intercepts"} & set(bank)
    assert bank == build_tiny(responses.iloc[:70], 30, seed=1, n_factors=1).to_dict()
    assert "n_factors" not in tiny.summary_dict()


def test_a_factor_bank_predicts_from_its_factors(tiny2, responses):
    cal = tiny2.calibration
    assert tiny2.n_factors == 2 and cal.loadings.shape == (120, 2)
    answers = responses.iloc[70:][tiny2.items]
    out = tiny2.predict(answers)
    assert out[["theta", "theta_se"]].isna().all().all()
    assert list(out.columns[-5:]) == ["F1", "F2", "se_F1", "se_F2", "cov_F1_F2"]
    # the estimators take the D-factor calibration unchanged: estimate_accuracy on it is the bank's prediction
    direct = estimate_accuracy(responses.iloc[:70], tiny2.items, answers, "ppi", calibration=cal,
                               strata=tiny2.strata)
    pd.testing.assert_frame_equal(direct, out)
    truth = responses.iloc[70:].mean(axis=1)
    assert float(np.abs(out["accuracy"] - truth).mean()) < 0.08
    assert tiny2.summary_dict()["n_factors"] == 2 and "2-factor" in tiny2.summary().as_text()


def test_factor_bank_round_trip(tiny2, responses, tmp_path):
    path = tiny2.save(tmp_path / "bank.json")
    data = json.loads(Path(path).read_text())
    assert data["version"] == 3 and data["n_factors"] == 2 and len(data["loadings"]) == 120
    again = load_tiny(path)
    np.testing.assert_array_equal(again.calibration.loadings, tiny2.calibration.loadings)
    np.testing.assert_array_equal(again.calibration.intercepts, tiny2.calibration.intercepts)
    answers = responses.iloc[70:][tiny2.items]
    pd.testing.assert_frame_equal(again.predict(answers), tiny2.predict(answers))
    with pytest.raises(ValidationError, match="1-D bank"):
        load_bank(path)
    with pytest.raises(ValidationError, match="1-D 2PL item bank"):
        tiny2.bank()


@pytest.mark.parametrize("edit, message", [
    (lambda b: b.update(version=2), "n_factors in a version-2 bank"),
    (lambda b: b.update(n_factors=1), "n_factors must be a whole number from 2"),
    (lambda b: b["loadings"].pop(), "loadings must have one list of 2 slopes per item"),
    (lambda b: b["loadings"].__setitem__(3, [1.0]), "item 'arct_5'.* loadings must be a list of 2 numbers"),
    (lambda b: b["intercepts"].__setitem__(0, None), "has d = None"),
])
def test_a_bad_factor_bank_is_one_line(tiny2, tmp_path, edit, message):
    data = tiny2.to_dict()
    edit(data)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValidationError, match=message) as err:
        load_tiny(path)
    assert "\n" not in str(err.value) and "bad.json" in str(err.value)


def test_a_calibration_of_other_factors_is_refused(responses):
    cal = calibrate_2pl(responses.iloc[:70], NCYCLES=20)
    with pytest.raises(ValidationError, match="calibration has 1 factor"):
        build_tiny(responses.iloc[:70], 30, n_factors=2, calibration=cal)
    with pytest.raises(ValidationError, match="n_factors"):
        build_tiny(responses.iloc[:70, :3], 3, n_factors=3)


def test_a_fit_factors_result_is_a_calibration(responses):
    from irtbridge.em.factors import fit_factors

    res = fit_factors(responses.iloc[:70], 2, NCYCLES=20)
    cal = factor_parameters(res)
    assert cal.n_factors == 2 and cal.names == tuple(responses.columns)
    np.testing.assert_allclose(cal.a, np.sqrt((res.a**2).sum(axis=1)))  # MDISC: what the flags read
    items = list(responses.columns[:30])
    via_result = estimate_accuracy(responses.iloc[:70], items, responses.iloc[70:][items], "pirt", calibration=res)
    via_params = estimate_accuracy(responses.iloc[:70], items, responses.iloc[70:][items], "pirt", calibration=cal)
    pd.testing.assert_frame_equal(via_result, via_params)
    assert calibrate_factors(responses.iloc[:70], 1, NCYCLES=20).loadings is None


@pytest.mark.parametrize("value", ["0", "11", "two", "1.5"])
def test_cli_factors_refused_one_line(tmp_path, capsys, value):
    with pytest.raises(SystemExit) as exc:  # refused while the command line is read (the declared --factors)
        main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(tmp_path / "t"), "--factors", value])
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "--factors" in err and len(err.splitlines()) == 1
    assert not (tmp_path / "t").exists()


def test_cli_factor_bank_end_to_end(tmp_path, responses, capsys):
    out = tmp_path / "t"
    assert main(["tiny", str(DATA), "--id-column", "model", "--k", "20", "--out", str(out), "--factors", "2",
                 "--no-validate", "--ncycles", "40", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["n_factors"] == 2
    tiny = load_tiny(out / "bank.json")
    responses.iloc[70:][tiny.items].rename_axis("model").to_csv(tmp_path / "answers.csv")
    assert main(["estimate", str(tmp_path / "answers.csv"), "--id-column", "model", "--bank",
                 str(out / "bank.json"), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)["respondents"]
    expected = tiny.predict(responses.iloc[70:][tiny.items])
    assert [r["accuracy"] for r in rows] == pytest.approx(expected["accuracy"].tolist(), abs=1e-12)
    assert [r["F2"] for r in rows] == pytest.approx(expected["F2"].tolist(), abs=1e-12)


def test_the_cli_limit_is_the_librarys():
    from irtbridge.cli import tiny as tiny_cli
    from irtbridge.leaderboard.estimators import MAX_FACTORS

    assert tiny_cli.MAX_FACTORS == MAX_FACTORS


def test_two_phase_reads_the_factor_feature(tiny2, responses):
    from irtbridge.leaderboard.twophase import predict_answers
    from irtbridge.leaderboard._predictors import item_features

    features = item_features(responses.iloc[:70].to_numpy())
    seen = np.array([list(responses.columns).index(i) for i in tiny2.items])
    y = responses.iloc[75][tiny2.items].to_numpy()
    cal = tiny2.calibration
    own = factor_predictions(cal.loadings, cal.intercepts, seen, y[None, :])[0][0]
    pred, _ = predict_answers(features, seen, y, cal)
    plain, _ = predict_answers(np.column_stack([features, own]), seen, y, None)
    np.testing.assert_allclose(pred, plain)  # the factor feature, not a 1-D reading of MDISC and MDIFF


def test_estimate_performance_on_factors_is_the_brute_force_p_irt():
    from irtbridge.leaderboard import estimate_performance
    from irtbridge.leaderboard._sample import IRTParameters

    rng = np.random.default_rng(5)
    J = 30
    A = np.column_stack([rng.uniform(0.5, 2.0, J), rng.uniform(-1.5, 1.5, J)])
    d = rng.normal(0, 1, J)
    names = tuple(f"q{j}" for j in range(J))
    cal = IRTParameters(names, np.ones(J), np.zeros(J), loadings=A, intercepts=d)
    anchors = list(names[:12])
    x = pd.DataFrame((rng.random((2, 12)) < 0.6).astype(float), columns=anchors)
    x.iloc[0, 3] = np.nan  # an unanswered anchor is predicted like an unseen item
    out = estimate_performance(x, cal, anchors)
    g = np.linspace(-6, 6, 241)
    f1, f2 = np.meshgrid(g, g, indexing="ij")
    for m in range(2):
        y = x.iloc[m].to_numpy()
        log_post = -0.5 * (f1**2 + f2**2)
        for j in range(12):
            if not np.isnan(y[j]):
                p = expit(A[j, 0] * f1 + A[j, 1] * f2 + d[j])
                log_post = log_post + (np.log(p) if y[j] == 1 else np.log1p(-p))
        w = np.exp(log_post - log_post.max())
        w /= w.sum()
        rest = [j for j in range(J) if j >= 12 or np.isnan(y[j])]
        P = [expit(A[j, 0] * f1 + A[j, 1] * f2 + d[j]) for j in rest]
        total, bern = sum(P), sum(p * (1 - p) for p in P)
        mean = (w * total).sum()
        var = (w * total**2).sum() - mean**2 + (w * bern).sum()
        assert out["accuracy"].iloc[m] == pytest.approx((np.nansum(y) + mean) / J, abs=2e-4)
        assert out["accuracy_se"].iloc[m] == pytest.approx(np.sqrt(var) / J, abs=2e-4)
        assert out["F1"].iloc[m] == pytest.approx((w * f1).sum(), abs=2e-3)
    assert out[["theta", "theta_se"]].isna().all().all()


def test_estimate_performance_reads_a_factor_bank(tiny2, responses, tmp_path):
    from irtbridge.leaderboard import estimate_performance

    path = tiny2.save(tmp_path / "bank.json")
    anchors = tiny2.items
    answers = responses.iloc[70:][anchors]
    by_path = estimate_performance(answers, path, anchors)
    pd.testing.assert_frame_equal(by_path, estimate_performance(answers, tiny2, anchors))
    assert list(by_path.columns[-4:]) == ["F1", "F2", "se_F1", "se_F2"]
    assert float(np.abs(by_path["accuracy"] - responses.iloc[70:].mean(axis=1)).mean()) < 0.15
    with pytest.raises(ValidationError, match="validation: validate_anchors measures a 1-D calibration"):
        estimate_performance(answers, path, anchors, validation=type("V", (), {"apply": lambda *a: a})())
