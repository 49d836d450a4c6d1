"""The native 3PL reaches a point at least as good as mirt's where the log-posterior has several modes.

The objective both engines report: ``logLik + logPrior`` as mirt computes them (``extract.mirt(fit,
"logLik") + extract.mirt(fit, "logPrior")``; the native fit's ``loglik + options["log_prior"]``). The
matrix: tests/_classifier_modes.py (60 classifiers x 60 instances, 9 classifiers predicting the minority
class), the stable mode's priors, 61 nodes. mirt is called directly in R (tests/r/reference_native_3pl.R:
its default fit from its own starting values, and its Newton-Raphson EM started at the native estimates).

* The native log-posterior is not below mirt's default fit's (1e-6), and the native fit is a fixed point
  of mirt's EM (mirt's Newton-Raphson EM started there stays within 1e-4);
* the control: Newton's M-step from mirt's starting values alone (no alternative starts) ends at another,
  lower mode, below mirt's log-posterior (the failure the alternative starts fix: the test can fail);
* the stopping rule: at TOL 1e-4 (mirt's default) the native fit is within 1e-3 of its TOL 1e-7 fit in
  every estimate of mirt's metric ``(a1, d, g)`` and in the log-posterior, so it does not stop early.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import irtbridge
from irtbridge.decodirt.modes import STABLE_PRIORS
from irtbridge.calibration.results.flags import IdentificationWarning
from irtbridge.em import asymptotes
from tests._classifier_modes import minority_predictors
from tests._rrefs import run_r

HERE = Path(__file__).resolve().parents[1]  # tests/


def _native(x: pd.DataFrame, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentificationWarning)
        return irtbridge.calibrate(x, "3PL", engine="native", priors=STABLE_PRIORS, se=False, quadpts=61, **options)


def _log_posterior(fit) -> float:
    return fit.loglik + fit.options["log_prior"]


@pytest.fixture(scope="module")
def ref(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("modes")
    x = minority_predictors()
    fit = _native(x, TOL=1e-6, technical={"NCYCLES": 5000})
    x.to_csv(tmp / "modes.csv", index=False)
    items = fit.items
    # mirt's EM starts from the native estimates rounded to 6 digits: the stored R reference is found by this
    # file's hash, and the native fit's last bits were once seen to differ after other tests in the same worker
    # (not understood); a start 1e-6 away ends at the same fixed point (compared below to 1e-4)
    pd.DataFrame({"a1": items["a"], "d": -items["a"] * items["b"], "g": items["g"]}).to_csv(
        tmp / "native.csv", index=False, float_format="%.6g")
    run_r(["Rscript", str(HERE / "r" / "reference_native_3pl.R"), str(tmp / "ref.json"), "modes",
                    str(tmp / "modes.csv"), str(tmp / "native.csv")], check=True)
    return x, fit, json.loads((tmp / "ref.json").read_text())["modes"]


@pytest.mark.r
def test_native_3pl_is_at_least_as_good_as_mirt_where_there_are_several_modes(ref):
    x, fit, r = ref
    assert fit.converged and r["default"]["converged"]
    mirt_logpost = r["default"]["loglik"] + r["default"]["logprior"]
    assert _log_posterior(fit) >= mirt_logpost - 1e-6
    for col in ("a", "b", "g"):
        np.testing.assert_allclose(fit.items[col], r["nr_native"][col], rtol=0, atol=1e-4, err_msg=col)


@pytest.mark.r
def test_without_alternative_starts_the_m_step_ends_at_a_lower_mode(ref, monkeypatch):
    x, _, r = ref
    monkeypatch.setattr(asymptotes, "MULTISTART_CYCLES", 0)
    single = _native(x, TOL=1e-6, technical={"NCYCLES": 5000})
    assert _log_posterior(single) < r["default"]["loglik"] + r["default"]["logprior"] - 1.0


def test_the_stopping_rule_does_not_stop_early():
    x = minority_predictors()
    loose, tight = _native(x), _native(x, TOL=1e-7, technical={"NCYCLES": 20000})
    slope_intercept = lambda f: (f.items["a"], -f.items["a"] * f.items["b"], f.items["g"])  # noqa: E731
    for name, u, v in zip("adg", slope_intercept(loose), slope_intercept(tight)):
        np.testing.assert_allclose(u, v, rtol=0, atol=1e-3, err_msg=name)
    assert abs(_log_posterior(loose) - _log_posterior(tight)) < 1e-3


def test_the_alternative_starts_never_lower_an_items_m_step_objective():
    # a generalised EM step: every item's objective after the multi-start M-step is at least the one
    # Newton's method reaches from the current point alone (so the EM stays monotone)
    from irtbridge.em.core import estep, nodes, prepare_responses
    from irtbridge.em.items import item_model
    from irtbridge.em.priors import item_priors

    x = minority_predictors()
    data = prepare_responses(x.to_numpy(), x.columns)
    priors = item_priors(STABLE_PRIORS, data.item_names)
    theta, w = nodes(61)
    model = item_model("3PL", priors)
    start = model.pack(model.start(data))
    p = model.unpack(start)
    r, n, _, _ = estep(data, p.a, p.d, theta, np.log(w), tables=model.log_pq(p, theta))
    single = asymptotes.newton(r, n, theta, start, model.mask, priors)
    multi = asymptotes.multistart(r, n, theta, start, model.mask, priors)
    value = lambda x: asymptotes.objective(r, n, theta, x, model.mask, priors)  # noqa: E731
    assert (value(multi) >= value(single) - 1e-9).all()
    assert (value(multi) > value(single) + 1e-3).any()  # on this matrix some items find a higher maximum
