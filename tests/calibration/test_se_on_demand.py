"""Standard errors on demand (issue 25): ``calibrate()`` fits without them, ``fit.standard_errors``
computes them on first access, and they are the numbers of ``mirt(..., SE = TRUE)`` called directly in R
(tests/r/reference_se_on_demand.R), to 1e-8 absolute: 2PL, 3PL (ML, and MAP with a prior on g), graded, a
confirmatory two-factor model, ``SE_type="crossprod"``, and ltm's 2PL. Multiple-group fits
(``calibrate_groups``) are not covered: ``GroupCalibration`` exposes no standard errors.

The singular case (estimates kept, NaN, one warning at the first access) is in test_se_rule.py.
"""

from __future__ import annotations

import json
import pickle
import threading
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge import calibrate
from irtbridge.cli import main
from irtbridge.exceptions import ValidationError
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/
TOL = 1e-8
TWO_FACTOR = "F1 = 1-4\nF2 = 5-8\nCOV = F1*F2"


def _dichotomous(rng, n, a, b, g) -> np.ndarray:
    theta = rng.normal(size=(n, 1))
    p = g + (1 - g) / (1 + np.exp(-a * (theta - b)))
    return (rng.random(p.shape) < p).astype(float)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(25)
    j = 10
    dich = pd.DataFrame(_dichotomous(rng, 3000, rng.uniform(0.8, 2.0, j), rng.normal(0, 1, j), rng.uniform(0.05, 0.25, j)),
                        columns=[f"i{k + 1}" for k in range(j)])
    theta = rng.normal(size=(800, 1))
    cuts = np.sort(rng.normal(0, 1, (1, 8, 3)), axis=2)
    slopes = rng.uniform(0.8, 2.0, (1, 8, 1))
    p_above = 1 / (1 + np.exp(-slopes * (theta[:, :, None] - cuts)))  # P(X >= k), k = 1..3
    graded = pd.DataFrame((rng.random((800, 8, 1)) < p_above).sum(axis=2).astype(float),
                          columns=[f"g{k + 1}" for k in range(8)])
    factors = rng.multivariate_normal([0, 0], [[1, 0.4], [0.4, 1]], size=600)
    load = np.zeros((8, 2))
    load[:4, 0], load[4:, 1] = rng.uniform(0.8, 2, 4), rng.uniform(0.8, 2, 4)
    p = 1 / (1 + np.exp(-(factors @ load.T + rng.normal(0, 1, 8))))
    two = pd.DataFrame((rng.random(p.shape) < p).astype(float), columns=[f"s{k + 1}" for k in range(8)])
    tmp = tmp_path_factory.mktemp("se_on_demand")
    paths = [tmp / "dich.csv", tmp / "graded.csv", tmp / "two.csv"]
    for frame, path in zip((dich, graded, two), paths):
        frame.to_csv(path, index=False)
    run_r(["Rscript", str(HERE / "r" / "reference_se_on_demand.R"), str(tmp / "ref.json"), *map(str, paths)],
                   check=True)
    return {"dich": dich, "graded": graded, "two": two, "ref": json.loads((tmp / "ref.json").read_text()),
            "dich_csv": paths[0]}


STABLE = {"a1": ("norm", 1.0, 0.5), "d": ("norm", 0.0, 3.0), "g": ("expbeta", 2.0, 17.0)}  # the "stable" mode
CASES = {  # reference key -> (data key, calibrate() arguments)
    "2PL": ("dich", {"model": "2PL"}),
    "3PL": ("dich", {"model": "3PL"}),
    "3PL_prior": ("dich", {"model": "3PL", "priors": STABLE}),
    "graded": ("graded", {"model": "graded"}),
    "crossprod": ("dich", {"model": "2PL", "SE_type": "crossprod"}),
    "two_factor": ("two", {"model": "2PL", "spec": TWO_FACTOR}),
    "ltm_2PL": ("dich", {"model": "2PL", "engine": "ltm"}),
}


def _assert_r_ses(table: pd.DataFrame, expected: dict) -> None:
    for col, values in expected.items():
        want = np.array([np.nan if v is None else v for v in values], dtype=float)
        if col not in table:  # mirt's slope-intercept labels of fixed asymptotes, e.g. "logit(g)"
            assert "(" in col and np.isnan(want).all(), col
            continue
        got = table[col].to_numpy(dtype=float)
        assert np.array_equal(np.isnan(got), np.isnan(want)), col  # NaN exactly where mirt reports no SE
        np.testing.assert_allclose(got[~np.isnan(want)], want[~np.isnan(want)], rtol=0, atol=TOL, err_msg=col)
    assert np.isfinite(table.to_numpy(dtype=float)).sum() >= len(table)  # not a comparison of NaN with NaN


@pytest.mark.r
@pytest.mark.parametrize("case", list(CASES))
def test_on_demand_equals_se_true_in_r(data, case):
    key, kwargs = CASES[case]
    fit = calibrate(data[key], **kwargs)
    assert not fit.standard_errors_computed and fit.options["se"] is None
    _assert_r_ses(fit.standard_errors, data["ref"][case])
    assert fit.standard_errors_computed
    assert fit.standard_errors is fit.standard_errors  # kept, not recomputed


@pytest.mark.r
def test_se_true_computes_eagerly_and_travels(data):
    fit = calibrate(data["dich"], "2PL", se=True)
    assert fit.standard_errors_computed and fit.options["se"] is True
    _assert_r_ses(fit.standard_errors, data["ref"]["2PL"])
    back = pickle.loads(pickle.dumps(fit))
    assert back.r_model is None
    pd.testing.assert_frame_equal(back.standard_errors, fit.standard_errors)
    pd.testing.assert_frame_equal(irtbridge.Calibration.from_json(fit.to_json()).standard_errors, fit.standard_errors)


@pytest.mark.r
def test_a_fit_without_its_live_model_says_to_refit_with_se_true(data):
    fit = calibrate(data["dich"], "2PL")
    gone = [pickle.loads(pickle.dumps(fit)), irtbridge.Calibration.from_json(fit.to_json()), fit.without_r_model()]
    for other in gone:
        with pytest.raises(ValidationError, match=r"refit with calibrate\(\.\.\., se=True\)") as err:
            other.standard_errors
        assert "\n" not in str(err.value)
        assert not other.standard_errors_computed
        pd.testing.assert_frame_equal(other.items, fit.items)  # the estimates travel regardless
    assert json.loads(fit.to_json())["standard_errors"] is None  # writing JSON computes nothing
    fit.standard_errors  # once computed, they travel too
    pd.testing.assert_frame_equal(pickle.loads(pickle.dumps(fit)).standard_errors, fit.standard_errors)


@pytest.mark.r
def test_se_false_is_nan_and_never_computed(data):
    fit = calibrate(data["dich"], "2PL", se=False)
    assert fit.standard_errors.isna().all().all() and not fit.standard_errors_computed
    assert "SE.type" not in fit.options


def test_bad_se_values_are_one_line_errors():
    x = np.random.default_rng(0).integers(0, 2, (50, 4)).astype(float)
    for bad in ("yes", 1, 0.5):
        with pytest.raises(ValidationError, match="se must be None"):
            calibrate(x, "2PL", engine="native", se=bad)


def test_native_fits_compute_on_first_access_once_across_threads(monkeypatch):
    import irtbridge.calibration.engines.native as native

    calls = []
    original = native._standard_errors

    def counted(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(native, "_standard_errors", counted)
    rng = np.random.default_rng(3)
    x = _dichotomous(rng, 1000, np.linspace(0.8, 2, 6), np.linspace(-1, 1, 6), np.zeros(6))
    fit = calibrate(x, "2PL", engine="native")
    assert not calls and not fit.standard_errors_computed
    tables = []
    threads = [threading.Thread(target=lambda: tables.append(fit.standard_errors)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and all(t is tables[0] for t in tables)
    eager = calibrate(x, "2PL", engine="native", se=True)  # the same crossprod computation, at the fit
    pd.testing.assert_frame_equal(tables[0], eager.standard_errors, rtol=0, atol=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a copy made with _replace shares the computed table, silently
        pd.testing.assert_frame_equal(fit._replace(options={}).standard_errors, tables[0])


@pytest.mark.r
def test_cli_reports_standard_errors_unless_no_se(data, capsys):
    assert main(["calibrate", str(data["dich_csv"]), "--model", "2PL", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    table = pd.DataFrame(out["standard_errors"]).set_index("item").astype(float)
    _assert_r_ses(table, data["ref"]["2PL"])
    assert main(["calibrate", str(data["dich_csv"]), "--model", "2PL", "--json", "--no-se"]) == 0
    assert "standard_errors" not in json.loads(capsys.readouterr().out)
    assert main(["calibrate", str(data["dich_csv"]), "--model", "2PL"]) == 0
    assert "standard errors" in capsys.readouterr().out  # the text output shows what it computed
    assert main(["calibrate", str(data["dich_csv"]), "--model", "2PL", "--no-se"]) == 0
    assert "standard errors" not in capsys.readouterr().out
