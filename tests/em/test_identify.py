"""The direction of the latent scale (irtbridge.em.identify; issue 32, item 5: "ability signs flip").

The reflection a -> -a, theta -> -theta leaves a 2PL's likelihood unchanged; the native EM reports the
direction with a positive mean slope. References: hand-made slope vectors; the sign of each item's
correlation with the rest score (computed from the data, not from a fit); the fit from the usual start.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import irtbridge
from irtbridge.em import core, window
from irtbridge.em.core import fit_em, prepare_responses
from irtbridge.em.identify import orient


@pytest.mark.parametrize("a, flipped, want", [
    ([0.8, -0.2, 1.5], False, [0.8, -0.2, 1.5]),
    ([-0.8, 0.2, -1.5], True, [0.8, -0.2, 1.5]),
    ([0.0, -0.4, 0.4], True, [0.0, 0.4, -0.4]),  # mean 0: the first slope not tied with 0 made positive
    ([1e-13, 0.4, -0.4 + 1e-13], False, [1e-13, 0.4, -0.4 + 1e-13]),  # mean 6.7e-14: a tie, not a sign
    ([np.nan, -1.0, -2.0], True, [np.nan, 1.0, 2.0]),
])
def test_orient_by_hand(a, flipped, want):
    got, was = orient(np.array(a))
    assert was is flipped
    np.testing.assert_array_equal(got, np.array(want))


def _data(n=400, j=40, missing=0.0, seed=2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.uniform(0.5, 2.0, j), rng.normal(0.0, 1.0, j)
    a[:3] = [-0.8, -0.6, 0.05]  # a few reversed or flat items, as mis-keyed benchmark items are
    x = (rng.random((n, j)) < expit(a * (theta[:, None] - b))).astype(float)
    x[rng.random((n, j)) < missing] = np.nan
    return x


def _reflected_start(monkeypatch):
    from irtbridge.em.items import Dichotomous

    original = Dichotomous.start

    def start(self, data):
        p = original(self, data)
        p.a = -p.a
        return p
    monkeypatch.setattr(Dichotomous, "start", start)


@pytest.mark.parametrize("model", ["2PL", "1PL"])
@pytest.mark.parametrize("missing, layout", [(0.0, "dense"), (0.3, "dense"), (0.8, "sparse")])
def test_a_fit_from_a_reflected_start_reports_the_same_direction(model, missing, layout, monkeypatch):
    x = _data(missing=missing)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    assert hasattr(data.M, "tocsr") == (layout == "sparse")
    usual = fit_em(data, model)
    _reflected_start(monkeypatch)
    reflected = fit_em(data, model)
    assert usual.a.mean() > 0 and reflected.a.mean() > 0
    np.testing.assert_allclose(reflected.a, usual.a, rtol=0, atol=1e-6)
    np.testing.assert_allclose(reflected.d, usual.d, rtol=0, atol=1e-6)
    assert reflected.loglik == pytest.approx(usual.loglik, abs=1e-6)
    # without the rule the reflected start ends reflected: the test can fail
    monkeypatch.setattr(core, "orient", lambda a: (a.copy(), False))
    assert fit_em(data, model).a.mean() < 0


def test_the_direction_agrees_with_the_data_and_the_abilities(monkeypatch):
    """Each item's slope has the sign of its correlation with the rest score (where that correlation is
    clear), and the abilities rise with the number right, whichever start; also on the windowed path."""
    monkeypatch.setattr(window, "MIN_CELLS", 0)
    x = _data(600, 60, 0.2, seed=9)
    _reflected_start(monkeypatch)
    responses = pd.DataFrame(x, columns=[f"i{k}" for k in range(x.shape[1])])
    fit = irtbridge.calibrate(responses, "2PL", engine="native")  # the public path
    total = np.nansum(x, axis=1)
    rest_corr = np.array([pd.Series(x[:, k]).corr(pd.Series(total - np.nan_to_num(x[:, k])))
                          for k in range(x.shape[1])])
    clear = np.abs(rest_corr) > 0.1
    assert clear.sum() > 40
    assert (np.sign(fit.items["a"].to_numpy()[clear]) == np.sign(rest_corr[clear])).all()
    theta = fit.abilities(responses=responses)["theta"].to_numpy()
    assert np.corrcoef(theta, np.nanmean(x, axis=1))[0, 1] > 0.9
