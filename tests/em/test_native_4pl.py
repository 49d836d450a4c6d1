"""The native 4PL (catalogue row ``4PL`` with ``native="em"``: mirt's ``dich`` item with ``a1, d, g, u`` free)
against mirt's 4PL called directly in R (tests/r/reference_native_4pl.R).

Same data, same priors on both sides: ``a1 ~ norm(1, 0.5)``, ``d ~ norm(0, 3)``, ``g ~ expbeta(2, 17)``,
``u ~ expbeta(17, 2)`` (mirt's 4PL has no finite maximum on most data without priors on the asymptotes),
61 nodes, TOL = 1e-6. Checks, with numbers from mirt:

* mirt's EM with its Newton-Raphson M-step (steps from mirt's own gradient and Hessian), started at the
  native estimates, stays within 1e-5 of them and reports the same log-likelihood and log prior: the native
  fit is a fixed point of mirt's EM (mirt's ``expbeta`` gradient lacks the logit Jacobian on ``u`` as on
  ``g``, :mod:`irtbridge.em.asymptotes`);
* the native crossprod standard errors equal mirt's ``SE.type = "crossprod"`` there (1e-5 relative);
* mirt's default fit (``nlminb`` M-step from ``g = 0.15, u = 0.85``) stops near that point (0.03 in ``a``
  on LSAT7: its M-step reads function values of ``logLik + logPrior``, which its gradient does not
  differentiate, so it stops before the fixed point of its own gradient).

Data: LSAT7 and a simulated 1,000 x 12 4PL matrix (``g = 0.1``, ``u = 0.92``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge._catalogue import CATALOGUE
from irtbridge.em import asymptotes
from irtbridge.em.core import estep, prepare_responses
from irtbridge.em.items import item_model
from irtbridge.em.priors import item_priors
from irtbridge.example_data import response_dataset
from tests._rrefs import run_r

HERE = Path(__file__).parent.parent  # tests/, where r/ holds the reference scripts
PRIORS = {"a1": ("norm", 1.0, 0.5), "d": ("norm", 0.0, 3.0), "g": ("expbeta", 2.0, 17.0),
          "u": ("expbeta", 17.0, 2.0)}
FIXED_POINT = 1e-5
SE_RTOL = 1e-5
DEFAULT = {"a": 0.03, "b": 0.01, "g": 1e-3, "u": 1e-3}
# the native estimates mirt starts from, rounded to 1e-7 (far inside the tolerances): the stored R reference
# is keyed on this file's content, which a last-bit change of the native arithmetic would otherwise change
START_FORMAT = "%.7f"


def _simulated() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    theta = rng.normal(size=(1000, 1))
    a, b = rng.uniform(0.8, 2.0, 12), rng.normal(0, 1, 12)
    p = 0.1 + (0.92 - 0.1) / (1 + np.exp(-a * (theta - b)))
    return pd.DataFrame((rng.random(p.shape) < p).astype(float), columns=[f"s{j}" for j in range(12)])


def _native(x: pd.DataFrame):
    return irtbridge.calibrate(x, "4PL", engine="native", priors=PRIORS, TOL=1e-6, quadpts=61,
                               technical={"NCYCLES": 5000})


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("native4pl")
    fits, argv = {}, []
    for name, x in (("lsat7", response_dataset("LSAT7")), ("sim4pl", _simulated())):
        fits[name] = fit = _native(x)
        x.to_csv(tmp / f"{name}.csv", index=False)
        items = fit.items
        pd.DataFrame({"a1": items["a"], "d": -items["a"] * items["b"], "g": items["g"], "u": items["u"]}).to_csv(
            tmp / f"{name}_native.csv", index=False, float_format=START_FORMAT)
        argv += [name, str(tmp / f"{name}.csv"), str(tmp / f"{name}_native.csv")]
    run_r(["Rscript", str(HERE / "r" / "reference_native_4pl.R"), str(tmp / "ref.json"), *argv], check=True)
    return fits, json.loads((tmp / "ref.json").read_text())


@pytest.mark.r
@pytest.mark.parametrize("name", ["lsat7", "sim4pl"])
def test_native_4pl_is_a_fixed_point_of_mirts_4pl(reference, name):
    fits, ref = reference
    fit, r = fits[name], ref[name]
    assert fit.converged and fit.engine == "native" and fit.model == "4PL"
    nr = r["nr_native"]
    assert nr["converged"] and nr["iterations"] <= 3
    for col in ("a", "b", "g", "u"):
        np.testing.assert_allclose(fit.items[col].to_numpy(), nr[col], rtol=0, atol=FIXED_POINT, err_msg=col)
        np.testing.assert_allclose(fit.standard_errors[col].to_numpy(), nr["se"][col], rtol=SE_RTOL,
                                   err_msg=f"SE {col}")
    assert fit.loglik == pytest.approx(nr["loglik"], abs=1e-4)
    assert fit.options["log_prior"] == pytest.approx(nr["logprior"], abs=1e-5)
    default = r["default"]
    assert default["converged"]
    for col, atol in DEFAULT.items():
        np.testing.assert_allclose(fit.items[col].to_numpy(), default[col], rtol=0, atol=atol, err_msg=col)


# -- pure Python ---------------------------------------------------------------------------------------


def test_the_4pl_is_a_catalogue_row_and_a_mask():
    row = CATALOGUE["4PL"]
    assert row.native == "em" and row.parameters == ("a", "b", "g", "u")
    model = item_model(row)
    assert model.free == ("a1", "d", "g", "u") and not model.plain
    assert item_model("3PL").mask == (True, True, True, False)
    assert item_model("2PL").plain and item_model("rasch").free == ("d",)


def test_4pl_derivatives_match_finite_differences():
    x = _simulated()
    data = prepare_responses(x.to_numpy(), x.columns)
    priors = item_priors({**PRIORS, "a1": ("lnorm", 0.0, 0.5)}, x.columns, "4PL")
    model = item_model("4PL", priors)
    theta = np.linspace(-6, 6, 61)
    w = np.exp(-theta**2 / 2)
    j = x.shape[1]
    point = np.stack([1.0 + 0.3 * np.sin(np.arange(j)), np.cos(np.arange(j)), np.full(j, -2.0),
                      np.full(j, 2.5)], axis=1)
    p = model.unpack(point)
    r, n, _, _ = estep(data, p.a, p.d, theta, np.log(w / w.sum()), tables=model.log_pq(p, theta))
    _, grad, hess, _ = asymptotes.derivatives(r, n, theta, point, model.mask, priors)
    h = 1e-6
    for k in range(4):
        up, down = point.copy(), point.copy()
        up[:, k] += h
        down[:, k] -= h
        f = lambda q: asymptotes.objective(r, n, theta, q, model.mask, priors)  # noqa: E731
        np.testing.assert_allclose((f(up) - f(down)) / (2 * h), grad[:, k], rtol=1e-5, atol=1e-4)
        g = lambda q: asymptotes.derivatives(r, n, theta, q, model.mask, priors)[1]  # noqa: E731
        np.testing.assert_allclose((g(up) - g(down)) / (2 * h), hess[:, :, k], rtol=1e-5, atol=1e-4)


def test_4pl_priors_name_its_parameters():
    from irtbridge.exceptions import ValidationError

    with pytest.raises(ValidationError, match="the 3PL has no estimated parameter 'u'"):
        irtbridge.calibrate(response_dataset("LSAT7"), "3PL", engine="native", priors={"u": ("expbeta", 17, 2)})
    with pytest.raises(ValidationError, match="unknown prior type 'norm' on 'u'"):
        irtbridge.calibrate(response_dataset("LSAT7"), "4PL", engine="native", priors={"u": ("norm", 1, 1)})
