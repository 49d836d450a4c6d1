"""Calibration through the bridge against the same fits computed with mirt and ltm called directly.

The reference numbers come from tests/r/reference_calibration.R (plain mirt/ltm calls, none of
irtbridge's R helpers), run live once per test session.

Tolerance 1e-8: the bridge passes the same data to the same deterministic optimizer, so anything but
float-transfer noise is a bug. Cross-engine (mirt vs ltm) comparisons use 0.05: different optimizers and
quadratures estimate the same model.
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
from irtbridge import Calibration, calibrate
from irtbridge.example_data import r_dataset, response_dataset
from irtbridge.exceptions import (
    ConvergenceWarning,
    DataWarning,
    RError,
    RPackageMissingError,
    RWarning,
    ValidationError,
)
from tests._rrefs import run_r

pytestmark = pytest.mark.r
HERE = Path(__file__).resolve().parents[1]  # tests/
EXACT = 1e-8


@pytest.fixture(scope="module")
def missing_data() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    theta = rng.normal(size=400)
    a = np.array([1.2, 0.8, 1.5, 1.0, 0.6, 1.9])
    b = np.array([-1.0, 0.0, 0.5, 1.0, -0.5, 0.2])
    p = 1 / (1 + np.exp(-a * (theta[:, None] - b)))
    x = (rng.uniform(size=p.shape) < p).astype(float)
    x[rng.uniform(size=x.shape) < 0.1] = np.nan
    x[np.isnan(x).all(axis=1), 0] = 1.0
    return pd.DataFrame(x, columns=[f"q{j}" for j in range(6)])


@pytest.fixture(scope="module")
def reference(tmp_path_factory, missing_data) -> dict:
    tmp = tmp_path_factory.mktemp("ref")
    csv = tmp / "missing.csv"
    missing_data.to_csv(csv, index=False, na_rep="NA")
    out = tmp / "ref.json"
    run_r(["Rscript", str(HERE / "r" / "reference_calibration.R"), str(out), str(csv)], check=True)
    return json.loads(out.read_text())


def _frame(ref_items: dict) -> pd.DataFrame:
    return pd.DataFrame(ref_items).astype(float)


def _check_items(fit: Calibration, ref: dict, tol: float = EXACT) -> None:
    expected = _frame(ref["items"])
    got = fit.items[list(expected.columns)]
    np.testing.assert_allclose(got.to_numpy(), expected.to_numpy(), rtol=0, atol=tol)
    assert fit.loglik == pytest.approx(ref["loglik"], abs=tol)
    assert fit.aic == pytest.approx(ref["aic"], abs=1e-6)
    assert fit.bic == pytest.approx(ref["bic"], abs=1e-6)


def _unjson(values) -> np.ndarray:
    x = np.asarray(values, dtype=float)
    return np.where(np.abs(x) >= 1e300, np.sign(x) * np.inf, x)


def _check_scores(fit: Calibration, ref: dict, methods, tol: float = EXACT) -> None:
    for m in methods:
        got = fit.abilities(m)
        np.testing.assert_allclose(got["theta"], _unjson(ref[m]["theta"]), atol=tol, err_msg=m)
        np.testing.assert_allclose(got["se"], _unjson(ref[m]["se"]), atol=tol, err_msg=m)


@pytest.mark.parametrize(
    "case, data, model",
    [
        ("LSAT7_2PL", "LSAT7", "2PL"),
        ("LSAT7_3PL", "LSAT7", "3PL"),
        ("LSAT7_rasch", "LSAT7", "rasch"),
        ("LSAT7_1PL", "LSAT7", "1PL"),
        ("Science_graded", "Science", "graded"),
        ("Science_gpcm", "Science", "gpcm"),
    ],
)
def test_mirt_matches_r(reference, case, data, model):
    ref = reference["mirt"][case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RWarning)
        fit = calibrate(response_dataset(data), model=model, engine="mirt")
    _check_items(fit, ref)
    assert fit.n_parameters == ref["nest"]
    assert fit.converged
    _check_scores(fit, ref, ["EAP", "MAP", "ML", "WLE"] if model == "2PL" else ["EAP", "MAP"])


@pytest.mark.parametrize(
    "case, data, model",
    [
        ("LSAT_2PL", "LSAT", "2PL"),
        ("LSAT_rasch", "LSAT", "rasch"),
        ("LSAT_1PL", "LSAT", "1PL"),
        ("LSAT_3PL", "LSAT", "3PL"),
        ("Abortion_2PL", "Abortion", "2PL"),
        ("Science_graded", "Science", "graded"),
        ("Science_gpcm", "Science", "gpcm"),
    ],
)
def test_ltm_matches_r(reference, case, data, model):
    ref = reference["ltm"][case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RWarning)
        fit = calibrate(response_dataset(data), model=model, engine="ltm")
    _check_items(fit, ref)
    _check_scores(fit, ref, ["EAP", "MAP"])


def test_missing_values_stay_missing(reference, missing_data):
    ref = reference["mirt"]["missing_2PL"]
    fit = calibrate(missing_data, "2PL")
    _check_items(fit, ref)
    _check_scores(fit, ref, ["EAP"])
    assert fit.n_respondents == len(missing_data)


def test_ltm_scores_rows_with_missing_answers_as_factor_scores_does(reference, missing_data):
    # ltm scores each distinct answer pattern once (NA is a value of the pattern) and copies it to its rows
    ref = reference["ltm"]["missing_2PL"]
    fit = calibrate(missing_data, "2PL", engine="ltm")
    _check_items(fit, ref)
    _check_scores(fit, ref, ["EAP", "MAP"])


def test_mirt_and_ltm_agree_on_lsat():
    data = response_dataset("LSAT")
    a = calibrate(data, "2PL", engine="mirt")
    b = calibrate(data, "2PL", engine="ltm")
    np.testing.assert_allclose(a.items[["a", "b"]], b.items[["a", "b"]], atol=0.05)
    assert a.loglik == pytest.approx(b.loglik, abs=0.05)


def test_item_names_are_kept_exactly(missing_data):
    names = ["Ítem 1", "a.b", "x y", "naïve-z", "1st", "Q(6)"]
    data = missing_data.set_axis(names, axis=1)
    fit = calibrate(data, "2PL")
    assert list(fit.items.index) == names
    assert list(fit.standard_errors.index) == names
    new = data.iloc[:5].set_axis([f"r{i}" for i in range(5)])
    scores = fit.abilities("EAP", responses=new)
    assert list(scores.index) == list(new.index)
    np.testing.assert_allclose(scores["theta"], fit.abilities("EAP")["theta"].iloc[:5], atol=EXACT)


def test_numpy_input_gets_default_names():
    x = response_dataset("LSAT").to_numpy()
    fit = calibrate(x, "2PL")
    assert list(fit.items.index) == [f"Item{j}" for j in range(1, 6)]


def test_pickle_and_json_leave_the_r_handle_behind():
    fit = calibrate(response_dataset("LSAT"), "2PL")
    assert fit.r_model is not None
    back = pickle.loads(pickle.dumps(fit))
    assert back.r_model is None
    pd.testing.assert_frame_equal(back.items, fit.items)
    again = Calibration.from_json(fit.to_json())
    pd.testing.assert_frame_equal(again.items, fit.items)
    assert again.loglik == fit.loglik and again.provenance == dict(fit.provenance)
    with pytest.raises(ValidationError, match="estimate_abilities"):
        again.abilities()
    assert fit.provenance["engine_version"] == "1.48"


def test_r_error_becomes_rerror_with_rs_message():
    # an option value inside its domain that mirt refuses in this combination (NR1 is MH-RM's optimizer,
    # not EM's; unknown optimizer names are refused in Python now): mirt's own error
    with pytest.raises(RError, match="M-step optimizer not supported") as info:
        calibrate(response_dataset("LSAT"), "2PL", optimizer="NR1")
    assert info.value.r_message == "M-step optimizer not supported"
    assert isinstance(info.value, RuntimeError)


def test_r_warnings_become_python_warnings():
    # ltm's grm() on Science warns "NaNs produced" from inside its optimizer (R itself, not irtbridge)
    with pytest.warns(RWarning, match="NaNs produced") as record:
        fit = calibrate(response_dataset("Science"), "graded", engine="ltm")
    assert any("NaNs produced" in w for w in fit.warnings)
    assert "Notes:" in fit.summary() and "NaNs produced" in fit.summary()
    assert all(r.filename == __file__ for r in record if r.category is RWarning)


def test_non_convergence_is_a_warning_and_a_flag():
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        fit = calibrate(response_dataset("LSAT"), "2PL", technical={"NCYCLES": 3})
    assert not fit.converged
    assert fit.iterations == 3
    assert "converged NO" in fit.summary()


def test_missing_r_package_names_the_install_command():
    from irtbridge._r import session

    with pytest.raises(RPackageMissingError, match=r"make setup.*install.packages\('notAPackage123'\)"):
        session.ensure_packages("notAPackage123")
    with pytest.raises(RPackageMissingError):
        r_dataset("notAPackage123", "x")


def test_long_character_vectors_cross_whole():
    """A long text vector with few distinct values crosses as codes of its distinct strings: NA, non-ASCII and
    order as R holds them; one of distinct values crosses element by element."""
    import rpy2.robjects as ro

    from irtbridge._r import session

    session.ensure_packages("stats")
    few = session.to_py(ro.r('c(rep(c("a", "\u00e9", NA, "b"), 600), "z")'))
    assert few.tolist() == ["a", "\u00e9", None, "b"] * 600 + ["z"]
    many = session.to_py(ro.r('c(paste0("s", 1:2000), NA)'))
    assert many.tolist() == [f"s{k}" for k in range(1, 2001)] + [None]


def test_threads_share_r_safely():
    data = response_dataset("LSAT")
    results, errors = [], []

    def work():
        try:
            results.append(calibrate(data, "2PL").loglik)
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(set(np.round(results, 10))) == 1


# --- bad input: one test per class, each a ValidationError naming the problem ---------------------
@pytest.mark.parametrize(
    "data, match",
    [
        (pd.DataFrame(), "empty"),
        (pd.DataFrame({"only": [0, 1, 1]}), "at least 2"),
        (pd.DataFrame({"a": [0, 1, 1], "b": ["x", "1", "0"]}), "non-numeric column.*'b'"),
        (pd.DataFrame({"a": [0, 1, 2], "b": [1, 0, 1]}), "0/1.*'a'"),
        (pd.DataFrame({"a": [0, 1, 1], "b": [np.nan] * 3}), "'b' have no responses"),
        (pd.DataFrame({"a": [0, np.nan, 1], "b": [1, np.nan, 0]}), r"respondent\(s\) \[1\]"),
        (pd.DataFrame([[0, 1, 1], [1, 1, 0]], columns=["a", "a", "b"]), "duplicate item names: 'a'"),
        (pd.DataFrame({"a": [0, 1, 0, 1], "b": [1, 1, 1, 1], "c": [0, 1, 1, 0]}), "'b' are answered the same way"),
    ],
)
def test_bad_input_is_a_clear_error(data, match):
    with pytest.raises(ValidationError, match=match):
        calibrate(data, "2PL")


def test_unsupported_model_engine_pair():
    with pytest.raises(ValidationError, match="'ltm' does not fit model '4PL'; use engine='mirt'"):
        calibrate(response_dataset("LSAT"), "4PL", engine="ltm")
    with pytest.raises(ValidationError, match="model='6PL' is not supported"):
        calibrate(response_dataset("LSAT"), "6PL")
    with pytest.raises(ValidationError, match="method='ML' is not supported"):
        calibrate(response_dataset("LSAT"), "2PL", engine="ltm").abilities("ML")


def test_constant_items_can_be_dropped_with_a_warning():
    data = response_dataset("LSAT").assign(always=1.0)
    with pytest.warns(DataWarning, match="always"):
        fit = calibrate(data, "2PL", drop_constant=True)
    assert fit.dropped_items == ("always",)
    assert "always" not in fit.items.index


def test_import_does_not_load_rpy2(fresh_python):
    code = (
        "import sys, irtbridge, irtbridge.calibration, irtbridge.example_data, irtbridge.cli; "
        "irtbridge.cli.build_parser(); "
        "assert 'rpy2' not in sys.modules, 'rpy2 imported'; print('clean')"
    )
    out = fresh_python.run(code)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "clean"


def test_version_and_public_api():
    assert irtbridge.__version__
    assert "calibrate" in irtbridge.__all__


def test_forked_child_cannot_use_r():
    import os

    from irtbridge._r import session

    session.call("irtb_versions", packages=["mirt"])  # R is running in this process now
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: must refuse before touching R
        try:
            session.call("irtb_versions", packages=["mirt"])
            msg = b"no error"
        except Exception as exc:  # noqa: BLE001 - reported to the parent
            msg = f"{type(exc).__name__}: {exc}".encode()[:500]
        os.write(write_end, msg)
        os._exit(0)
    os.close(write_end)
    data = os.read(read_end, 1000).decode()
    os.waitpid(pid, 0)
    assert data.startswith("RSessionForkedError") and "spawn" in data


def _fit_in_worker(data):
    return calibrate(data, "2PL")


def test_results_travel_from_spawned_workers():
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    data = response_dataset("LSAT")
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        remote = pool.submit(_fit_in_worker, data).result()
    local = calibrate(data, "2PL")
    assert remote.r_model is None
    np.testing.assert_allclose(remote.items.to_numpy(), local.items.to_numpy(), atol=EXACT)


def test_warnings_escalated_by_r_code_stay_errors(tmp_path):
    # ltm's start values run glm.fit under options(warn = 2) inside try(): a glm warning must become the
    # error that makes ltm fall back to c(0, 1), exactly as in plain R. Data: an item that separates
    # perfectly, so glm warns.
    from irtbridge._r import session

    session.source_file(Path(__file__).resolve().parents[1] / "r" / "escalation_probe.R")
    out = session.call("irtb_escalation_probe")
    assert out == "error"
