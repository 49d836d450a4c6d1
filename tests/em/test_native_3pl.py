"""The native 3PL (irtbridge.em: the 3PL row's item model) against mirt's stable-mode 3PL called directly in R.

The stable mode is ``mirt(data, 1, "3PL", pars = sv)`` with ``a1 ~ norm(1, 0.5)``, ``d ~ norm(0, 3)`` and
``g ~ expbeta(2, 17)`` in ``sv`` (tests/r/reference_native_3pl.R), 61 nodes and TOL = 1e-6 on both sides.

mirt's M-step gradient for ``expbeta`` lacks the logit Jacobian (see the module docstring of irtbridge.em.asymptotes), so
its default ``nlminb`` M-step, which also reads function values, can stall before its EM reaches a fixed
point: on the classifier-shaped matrices mirt's default fit stops where its own gradient is still up to
0.1 in ``logit(g)``. Three checks follow from that, each with numbers from mirt:

* mirt's EM with a Newton-Raphson M-step (steps from mirt's own gradient and Hessian only), started at the
  native estimates, stays within 1e-4 of them: the native fit is a fixed point of mirt's EM;
* on LSAT7, where mirt's default fit does converge, the native fit equals it to 1e-3 in ``a, b, g``, and
  equals mirt's Newton-Raphson EM from mirt's own starting values to 1e-4;
* the native log-posterior (mirt's ``logLik + logPrior``) is not lower than that of mirt's default fit
  (to 1e-6: both are within TOL of the same fixed point, which is not the maximum of that sum);
* the native crossprod standard errors equal mirt's ``SE.type = "crossprod"`` at that fixed point (1e-4
  relative; up to 1,000 parameters).
Data: LSAT7; the response matrices ``irtbridge evaluate`` calibrates for iris and wine (43 respondents:
40 classifiers and 3 artificial ones, 45 and 54 instances; the benchmark's own split, pool and seed); and
simulated classifier-shaped 40 x 200 and 132 x 500 matrices. Constant items dropped, as the stable mode does.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import irtbridge
from irtbridge.decodirt.modes import STABLE_PRIORS, CalibrationMode, simulate_classifier_responses
from irtbridge.calibration.results.flags import IdentificationWarning
from irtbridge.example_data import response_dataset
from irtbridge.exceptions import IrtBridgeWarning, ValidationError
from irtbridge.em import asymptotes
from irtbridge.em.items import item_model
from irtbridge.em.priors import item_priors, prior_terms
from irtbridge.em.core import ResponseData, estep, fit_em, prepare_graded, prepare_responses
from tests._rrefs import run_r

HERE = Path(__file__).parent.parent  # tests/, where r/ holds the reference scripts
FIXED_POINT = 1e-4  # mirt's Newton-Raphson EM started at the native estimates
DEFAULT = 1e-3  # mirt's default stable-mode fit, where it converges (LSAT7)
LOGPOST = 1e-6
# the native estimates mirt starts from, rounded to 1e-7 (far inside the tolerances): the stored R reference
# is keyed on this file's content, which a last-bit change of the native arithmetic would otherwise change
START_FORMAT = "%.7f"


def _classifier(n: int, j: int) -> pd.DataFrame:
    x, _, _ = simulate_classifier_responses(n, j, seed=0)
    return x.loc[:, x.nunique() > 1]


def _evaluate_matrix(name: str) -> pd.DataFrame:
    """The matrix ``evaluate_dataset(name)`` calibrates (its defaults: 30% test split, 3 random guessers, seed 0)."""
    from irtbridge.decodirt import classifier_pool, load_benchmark_dataset
    from irtbridge.decodirt.per_dataset import _respond
    from irtbridge.decodirt.settings import Settings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        responses, _, _ = _respond(load_benchmark_dataset(name), classifier_pool("default"), Settings())
    return responses.loc[:, responses.nunique() > 1]


def _data(name: str) -> pd.DataFrame:
    return {"lsat7": lambda: response_dataset("LSAT7"), "c40x200": lambda: _classifier(40, 200),
            "c132x500": lambda: _classifier(132, 500), "iris": lambda: _evaluate_matrix("iris"),
            "wine": lambda: _evaluate_matrix("wine")}[name]()


def _native(x: pd.DataFrame):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", IdentificationWarning)  # items past the flag limits (|b| > 6) are flagged
        return irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, se=3 * x.shape[1] <= 1000,
                                   TOL=1e-6, quadpts=61, technical={"NCYCLES": 5000})


def _reference(tmp: Path, names: list[str]) -> tuple[dict, dict]:
    fits, argv = {}, []
    for name in names:
        x = _data(name)
        fits[name] = fit = _native(x)
        x.to_csv(tmp / f"{name}.csv", index=False)
        items = fit.items
        pd.DataFrame({"a1": items["a"], "d": -items["a"] * items["b"], "g": items["g"]}).to_csv(
            tmp / f"{name}_native.csv", index=False, float_format=START_FORMAT)
        argv += [name, str(tmp / f"{name}.csv"), str(tmp / f"{name}_native.csv")]
    run_r(["Rscript", str(HERE / "r" / "reference_native_3pl.R"), str(tmp / "ref.json"), *argv], check=True)
    return fits, json.loads((tmp / "ref.json").read_text())


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    return _reference(tmp_path_factory.mktemp("native3pl"), ["lsat7", "c40x200", "iris", "wine"])


@pytest.fixture(scope="module")
def large(tmp_path_factory):
    return _reference(tmp_path_factory.mktemp("native3pl_large"), ["c132x500"])


def _assert_items(fit, r, atol):
    for col in ("a", "b", "g"):
        np.testing.assert_allclose(fit.items[col].to_numpy(), r[col], rtol=0, atol=atol, err_msg=col)


def _check(fits, ref, name):
    fit, r = fits[name], ref[name]
    assert fit.converged and fit.engine == "native" and fit.model == "3PL"
    assert r["nr_native"]["converged"] and r["nr_native"]["iterations"] <= 3
    _assert_items(fit, r["nr_native"], FIXED_POINT)
    mirt_logpost = r["default"]["loglik"] + r["default"]["logprior"]
    assert fit.loglik + fit.options["log_prior"] >= mirt_logpost - LOGPOST
    if r["nr_native"]["se"]:
        for col in ("a", "b", "g"):
            np.testing.assert_allclose(fit.standard_errors[col].to_numpy(), r["nr_native"]["se"][col], rtol=1e-4,
                                       err_msg=f"SE {col}")
    else:
        assert fit.standard_errors.isna().all().all()


@pytest.mark.r
@pytest.mark.parametrize("name", ["lsat7", "c40x200", "iris", "wine"])
def test_native_3pl_is_a_fixed_point_of_mirts_em(small, name):
    _check(*small, name)


@pytest.mark.r
@pytest.mark.slow
def test_native_3pl_is_a_fixed_point_of_mirts_em_132x500(large):
    _check(*large, "c132x500")


@pytest.mark.r
def test_native_3pl_equals_mirts_converged_fit_on_lsat7(small):
    fits, ref = small
    fit, r = fits["lsat7"], ref["lsat7"]
    _assert_items(fit, r["default"], DEFAULT)
    _assert_items(fit, r["nr_start"], FIXED_POINT)
    assert fit.loglik == pytest.approx(r["nr_start"]["loglik"], abs=1e-5)
    # mirt's NR EM stops about 1e-5 short in the log prior: -2.98605448 where the native fit run to TOL 1e-9
    # (plain EM and SQUAREM alike) reaches -2.98606492; the native TOL 1e-6 fit is within 1e-7 of that
    assert fit.options["log_prior"] == pytest.approx(r["nr_start"]["logprior"], abs=2e-5)


@pytest.mark.r
def test_native_3pl_without_priors_equals_mirts_ml_fit_on_lsat7(small):
    # four items' guessing runs to its boundary 0; mirt stops once g moves by less than TOL per cycle (g still
    # 1e-4 to 3e-4, b of Item.3 1.2e-3 short), the native EM goes on: 2e-3 in a and b, 1e-3 in g, and the
    # native log-likelihood is the higher
    r = small[1]["lsat7"]["ml"]
    fit = irtbridge.calibrate(response_dataset("LSAT7"), "3PL", engine="native", se=False, TOL=1e-6, quadpts=61,
                              technical={"NCYCLES": 5000})
    assert fit.converged and fit.options["log_prior"] == 0.0
    for col, atol in (("a", 2e-3), ("b", 2e-3), ("g", DEFAULT)):
        np.testing.assert_allclose(fit.items[col].to_numpy(), r[col], rtol=0, atol=atol, err_msg=col)
    assert fit.loglik >= r["loglik"] - LOGPOST


# -- pure Python ---------------------------------------------------------------------------------------


def test_mirts_expbeta_gradient_without_the_jacobian_is_the_derivative_of_phi():
    # mirt's d_priors adds (alpha - 1) / g - (beta - 1) / (1 - g) to the gradient in logit(g)
    lam = np.linspace(-6, 3, 19)
    kind = np.tile([4.0, 2.0, 17.0], (lam.size, 1))
    g = 1 / (1 + np.exp(-lam))
    _, grad, hess = prior_terms(kind, lam, reported=False)
    np.testing.assert_allclose(grad, 1 / g - 16 / (1 - g), rtol=1e-12)
    h = 1e-6
    value = lambda x: prior_terms(kind, x, reported=False)[0]  # noqa: E731
    np.testing.assert_allclose((value(lam + h) - value(lam - h)) / (2 * h), grad, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(hess, -np.exp(-lam) - 16 * np.exp(lam), rtol=1e-12)
    # the value mirt reports is log dbeta(g, 2, 17) = log(g) + 16 log(1 - g) - log B(2, 17)
    reported = prior_terms(kind, lam, reported=True)[0]
    np.testing.assert_allclose(reported, np.log(g) + 16 * np.log1p(-g) + np.log(18 * 17), rtol=1e-12)


def test_item_derivatives_match_finite_differences():
    x = _classifier(40, 60)
    data = prepare_responses(x.to_numpy(), x.columns)
    priors = item_priors({**STABLE_PRIORS, "a1": ("lnorm", 0.0, 0.5)}, x.columns)
    theta = np.linspace(-6, 6, 61)
    w = np.exp(-theta**2 / 2)
    a, d, lam = 1.0 + 0.3 * np.sin(np.arange(x.shape[1])), np.cos(np.arange(x.shape[1])), np.full(x.shape[1], -2.0)
    model = item_model("3PL", priors)
    point = np.stack([a, d, lam], axis=1)
    p = model.unpack(point)
    r, n, _, _ = estep(data, a, d, theta, np.log(w / w.sum()), tables=model.log_pq(p, theta))
    _, grad, hess, _ = asymptotes.derivatives(r, n, theta, point, model.mask, priors)
    h = 1e-6
    for k in range(3):
        up, down = point.copy(), point.copy()
        up[:, k] += h
        down[:, k] -= h
        f = lambda q: asymptotes.objective(r, n, theta, q, model.mask, priors)  # noqa: E731
        np.testing.assert_allclose((f(up) - f(down)) / (2 * h), grad[:, k], rtol=1e-5, atol=1e-5)
        g = lambda q: asymptotes.derivatives(r, n, theta, q, model.mask, priors)[1]  # noqa: E731
        np.testing.assert_allclose((g(up) - g(down)) / (2 * h), hess[:, :, k], rtol=1e-5, atol=1e-5)


def test_sparse_and_dense_layouts_agree():
    x = _classifier(40, 120)
    x = x.mask(np.random.default_rng(3).random(x.shape) < 0.6)
    x = x.loc[x.notna().any(axis=1), x.nunique() > 1]
    dense = irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, TOL=1e-6)
    values = x.to_numpy()
    seen = ~np.isnan(values)
    cells = ResponseData(sparse.csr_matrix(seen & (values == 1), dtype=float), sparse.csr_matrix(seen, dtype=float),
                         tuple(x.columns), x.index)
    answered = irtbridge.calibrate(cells, "3PL", engine="native", priors=STABLE_PRIORS, TOL=1e-6)
    pd.testing.assert_frame_equal(answered.items, dense.items, rtol=0, atol=1e-10)
    pd.testing.assert_frame_equal(answered.standard_errors, dense.standard_errors, rtol=1e-8, atol=0)
    assert answered.loglik == pytest.approx(dense.loglik, abs=1e-8)


@pytest.mark.slow
def test_squarem_reaches_the_plain_em_maximum_in_fewer_cycles():
    x = _classifier(40, 200)
    fits = {acc: irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, se=False, TOL=1e-6,
                                     accelerate=acc, technical={"NCYCLES": 5000}) for acc in ("squarem", "none")}
    fast, plain = fits["squarem"], fits["none"]
    assert fast.converged and plain.converged and 2 * fast.iterations < plain.iterations
    pd.testing.assert_frame_equal(fast.items, plain.items, rtol=0, atol=1e-4)
    assert fast.loglik + fast.options["log_prior"] == pytest.approx(plain.loglik + plain.options["log_prior"], abs=1e-6)


@pytest.mark.slow
def test_without_priors_the_fit_is_maximum_likelihood():
    x = response_dataset("LSAT7")
    ml = irtbridge.calibrate(x, "3PL", engine="native", se=False, TOL=1e-6, technical={"NCYCLES": 5000})
    stable = irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, se=False, TOL=1e-6)
    assert ml.options["log_prior"] == 0.0 and ml.loglik > stable.loglik


@pytest.mark.slow
def test_standard_errors_above_the_limit_are_nan_with_one_warning():
    x = _classifier(40, 400)
    assert 3 * x.shape[1] > 1000
    with pytest.warns(IrtBridgeWarning, match="standard errors not computed") as caught:
        fit = irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, se=True)
    assert len([w for w in caught if "standard errors" in str(w.message)]) == 1  # and one for flagged items
    assert fit.standard_errors.isna().all().all() and fit.items.notna().all().all()
    later = irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS)  # on demand: at the access
    with pytest.warns(IrtBridgeWarning, match="standard errors not computed") as caught:
        assert later.standard_errors.isna().all().all()
    assert len([w for w in caught if issubclass(w.category, IrtBridgeWarning)]) == 1


@pytest.mark.parametrize("priors, message", [
    ({"u": ("norm", 1, 0.1)}, "the 3PL has no estimated parameter 'u'"),
    ({"g": ("beta", 2, 17)}, "unknown prior type 'beta' on 'g'"),
    ({"d": ("lnorm", 0, 1)}, "unknown prior type 'lnorm' on 'd'"),
    ({"a1": ("norm", 1, 0)}, "is not a proper distribution"),
])
def test_bad_priors_are_one_line_errors(priors, message):
    with pytest.raises(ValidationError, match=message) as err:
        irtbridge.calibrate(response_dataset("LSAT7"), "3PL", engine="native", priors=priors, se=False)
    assert "\n" not in str(err.value)


def test_bad_options_are_one_line_errors():
    x = response_dataset("LSAT7")
    cases = [
        (dict(model="2PL", priors=STABLE_PRIORS), "the 2PL has no estimated parameter 'g'"),
        (dict(model="rasch", priors={"d": ("norm", 0, 3)}), "takes priors for the 1PL, 2PL, 3PL and 4PL, not model 'rasch'"),
        (dict(model="3PL", client=object()), "the 3PL runs in one process"),
        (dict(model="3PL", TOL=0.0), "TOL"),
        (dict(model="3PL", technical={"MAXQUAD": 3}), "technical takes only NCYCLES"),
        (dict(model="3PL", accelerate="Ramsay"), "accelerate=.Ramsay. is not supported"),
    ]
    for kwargs, message in cases:
        with pytest.raises(ValidationError, match=message) as err:
            irtbridge.calibrate(x, engine="native", se=False, **kwargs)
        assert "\n" not in str(err.value)
    graded, _ = prepare_graded(np.array([[0.0, 1.0], [2.0, 0.0], [1.0, 1.0]]), ["p", "q"])
    with pytest.raises(ValidationError, match="needs 0/1 responses"):
        fit_em(graded, "3PL")


def test_stable_mode_runs_natively_without_r(fresh_python):
    code = ("import sys, warnings\n"
            "from irtbridge.decodirt.modes import CalibrationMode, calibrate_classifier_responses, "
            "simulate_classifier_responses\n"
            "x, _, _ = simulate_classifier_responses(40, 80, seed=2)\n"
            "fit = calibrate_classifier_responses(x, CalibrationMode.resolve('stable', engine='native'))\n"
            "print(fit.engine, fit.model, fit.options['calibration'], fit.converged, 'rpy2' in sys.modules)\n")
    out = fresh_python.run(code, check=True).stdout.split()
    assert out == ["native", "3PL", "stable", "True", "False"]
    assert CalibrationMode.resolve("stable", engine="native").describe().startswith("the native engine's 3PL")
