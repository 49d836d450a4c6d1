"""Priors on the native 2PL and 1PL (irtbridge.em.priors) against mirt called directly in R with the same priors.

mirt: ``sv <- mirt(data, 1, "2PL", pars = "values")`` with ``prior.type``, ``prior_1``, ``prior_2`` set on
the ``a1`` / ``d`` rows, then ``mirt(data, 1, "2PL", pars = sv)`` (the 1PL adds ``constrain`` over every
``a1``), 61 nodes and TOL = 1e-6 on both sides (tests/r/reference_native_priors.R). Both EMs stop within
about 1e-5 of the same maximum of the log-posterior: estimates must agree to 1e-4 (3e-4 on the sparse
runaway matrix, where EM is slower), the log-likelihood and mirt's ``logPrior`` to 1e-4, crossprod SEs (with
mirt's prior term) to 1e-3 relative.
Data: LSAT7 (2PL with ``a1 ~ lnorm(0, 0.5)``, ``d ~ norm(0, 2)``; 1PL with ``a1 ~ norm(1, 0.5)``,
``d ~ norm(0, 3)``) and the 2PL with ``a1 ~ norm(1, 0.5)`` on the runaway matrix of tests/_runaway.py
(60 x 200, 30% missing), where maximum likelihood has no finite slopes and the prior keeps them finite.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import irtbridge
from irtbridge.calibration.results.flags import IdentificationWarning
from irtbridge.example_data import response_dataset
from irtbridge.em import priors as em_priors
from irtbridge.em.core import fit_em, prepare_responses
from irtbridge.exceptions import ValidationError
from tests._runaway import runaway_matrix
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/

CASES = {
    "lsat7_2PL": ("lsat7", "2PL", {"a1": ("lnorm", 0, 0.5), "d": ("norm", 0, 2)}, 1e-4),
    "lsat7_1PL": ("lsat7", "1PL", {"a1": ("norm", 1, 0.5), "d": ("norm", 0, 3)}, 1e-4),
    "runaway_2PL": ("runaway", "2PL", {"a1": ("norm", 1, 0.5)}, 3e-4),
}


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("priors")
    runaway_matrix().to_csv(tmp / "runaway.csv", index=False, na_rep="NA")
    run_r(["Rscript", str(HERE / "r" / "reference_native_priors.R"), str(tmp / "ref.json"),
                    str(tmp / "runaway.csv"), *CASES], check=True)
    return json.loads((tmp / "ref.json").read_text())


def _data(name):
    return response_dataset("LSAT7") if name == "lsat7" else runaway_matrix()


@pytest.mark.r
@pytest.mark.parametrize("case", list(CASES))
def test_native_priors_equal_mirts_map_estimate(ref, case):
    name, model, priors, atol = CASES[case]
    x = _data(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentificationWarning)  # the runaway matrix keeps an item with |b| > 6
        fit = irtbridge.calibrate(x, model, engine="native", priors=priors, se=name == "lsat7", TOL=1e-6, quadpts=61,
                                  technical={"NCYCLES": 5000})
    r = ref[case]
    assert fit.converged and r["converged"]
    np.testing.assert_allclose(fit.items["a"], r["a"], rtol=0, atol=atol)
    np.testing.assert_allclose(fit.items["b"], r["b"], rtol=0, atol=atol)
    assert fit.loglik == pytest.approx(r["loglik"], abs=1e-4)
    assert fit.options["log_prior"] == pytest.approx(r["logprior"], abs=1e-4)
    assert fit.options["priors"] and not any("|a|" in f for f in fit.item_flags)  # no runaway slope
    if r["se"]:
        np.testing.assert_allclose(fit.standard_errors["a"], r["se"]["a"], rtol=1e-3)
        np.testing.assert_allclose(fit.standard_errors["b"], r["se"]["b"], rtol=1e-3)


def test_the_map_m_step_climbs_the_log_posterior_to_a_zero_gradient():
    # the item log-posteriors at the M-step's answer: gradient zero (central differences of the objective,
    # an independent check of the analytic derivatives) and nothing higher nearby
    x = runaway_matrix().iloc[:, :40].to_numpy()
    data = prepare_responses(x, [f"i{j}" for j in range(40)])
    layout = em_priors.item_priors({"a1": ("lnorm", 0.2, 0.4), "d": ("norm", 0, 2)}, data.item_names, "2PL")
    res = fit_em(data, "2PL", priors=layout, TOL=1e-8, NCYCLES=5000)
    from irtbridge.em.core import estep, nodes
    theta, w = nodes(61)
    r, n, _, _ = estep(data, res.a, res.d, theta, np.log(w))
    a, d = em_priors.newton_map("2PL", r, n, theta, res.a, res.d, layout)
    f = lambda a_, d_: em_priors._objective(r, n, theta, a_, d_, layout)  # noqa: E731
    h = 1e-5
    ga = (f(a + h, d) - f(a - h, d)) / (2 * h)
    gd = (f(a, d + h) - f(a, d - h)) / (2 * h)
    assert np.abs(ga).max() < 1e-4 and np.abs(gd).max() < 1e-4
    for da, dd in ((1e-3, 0), (-1e-3, 0), (0, 1e-3), (0, -1e-3)):
        assert (f(a + da, d + dd) <= f(a, d) + 1e-12).all()


def test_priors_the_native_model_does_not_estimate_are_one_line_errors():
    x = runaway_matrix().iloc[:, :10]
    with pytest.raises(ValidationError, match="the 2PL has no estimated parameter 'g'"):
        irtbridge.calibrate(x, "2PL", engine="native", priors={"g": ("expbeta", 2, 17)})
    with pytest.raises(ValidationError, match="takes priors for the 1PL, 2PL, 3PL and 4PL, not model 'rasch'"):
        irtbridge.calibrate(x, "rasch", engine="native", priors={"d": ("norm", 0, 1)})
    with pytest.raises(ValidationError, match="unknown prior type 'lnorm' on 'd' for the native 1PL"):
        irtbridge.calibrate(x, "1PL", engine="native", priors={"d": ("lnorm", 0, 1)})
    with pytest.raises(ValidationError, match="the 1PL has one slope shared by every item"):
        irtbridge.calibrate(x, "1PL", engine="native", priors={"a1": {"dist": "norm", "p1": 1, "p2": 1,
                                                                      "items": list(x.columns[:2])}})
