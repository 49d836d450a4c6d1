"""The native EM's faster cycle and its SQUAREM accelerator (issue 23, items 1 and 2).

References, none of them irtbridge's own fit: the E-step against the log-likelihood summed cell by cell in a
plain loop; the accelerated fit against plain EM run to the same TOL (the same maximum: parameters within
1e-4 at TOL 1e-6, log-likelihood not lower); the model fits against mirt itself stay in test_native_em.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import sparse
from scipy.special import expit

import irtbridge
from irtbridge.example_data import response_dataset
from irtbridge.em.accelerate import squarem
from irtbridge.em.core import estep, fit_em, nodes, prepare_graded, prepare_responses
from irtbridge.exceptions import ValidationError


def _leaderboard(n=300, j=400, missing=0.8, seed=5) -> np.ndarray:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n)
    a, b = rng.lognormal(0.0, 0.3, j), rng.normal(0.0, 1.0, j)
    x = (rng.random((n, j)) < expit(a * (theta[:, None] - b))).astype(float)
    x[rng.random((n, j)) < missing] = np.nan
    right, wrong = np.nansum(x, axis=0), np.nansum(1 - x, axis=0)
    # items with a handful of answers of one kind have no finite maximum (the slope runs away): EM, plain or
    # accelerated, only drifts there, so they say nothing about reaching the maximum
    return x[:, np.minimum(right, wrong) >= 10]


def test_sparse_estep_equals_the_cell_by_cell_sums():
    x = _leaderboard(60, 80, 0.7)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    assert sparse.issparse(data.M) and data.cells is not None
    rng = np.random.default_rng(1)
    a, d = rng.lognormal(0, 0.3, x.shape[1]), rng.normal(size=x.shape[1])
    theta, w = nodes(21)
    r, n, N, loglik = estep(data, a, d, theta, np.log(w))
    p = expit(a[:, None] * theta[None, :] + d[:, None])  # items x nodes
    ll = np.zeros((x.shape[0], len(theta)))
    for i, j in zip(*np.nonzero(~np.isnan(x))):
        ll[i] += np.log(p[j] if x[i, j] == 1 else 1 - p[j])
    ll += np.log(w)
    post = np.exp(ll - np.log(np.exp(ll).sum(axis=1, keepdims=True)))
    seen, right = ~np.isnan(x), np.nan_to_num(x) == 1
    np.testing.assert_allclose(r, right.T.astype(float) @ post, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(n, seen.T.astype(float) @ post, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(N, post.sum(axis=0), rtol=1e-12)
    assert loglik == pytest.approx(np.log(np.exp(ll).sum(axis=1)).sum(), rel=1e-12)


def test_graded_answered_counts_are_the_category_sums():
    x = response_dataset("Science").to_numpy(dtype=float)
    x[::7, 1] = np.nan
    data, _ = prepare_graded(x, ["a", "b", "c", "d"], dense_below=0.0)
    theta, w = nodes(15)
    a, d = np.ones(4), np.tile([2.0, 0.0, -2.0], (4, 1))
    _, n, _, _ = estep(data, a, d, theta, np.log(w))
    from irtbridge.em.core import posterior

    post, _ = posterior(data, a, d, theta, np.log(w))
    np.testing.assert_allclose(n, np.asarray(data.M.T @ post), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("model", ["2PL", "1PL", "rasch", "graded"])
def test_squarem_reaches_the_plain_em_maximum(model):
    if model == "graded":
        data, _ = prepare_graded(response_dataset("Science").to_numpy(dtype=float), ["a", "b", "c", "d"])
    else:
        x = _leaderboard()
        data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    fits = {acc: fit_em(data, model, TOL=1e-6, NCYCLES=20000, accelerate=acc) for acc in ("squarem", "none")}
    fast, plain = fits["squarem"], fits["none"]
    assert fast.converged and plain.converged
    np.testing.assert_allclose(fast.a, plain.a, atol=1e-4, rtol=0)
    np.testing.assert_allclose(fast.d, plain.d, atol=1e-4, rtol=0)
    assert fast.variance == pytest.approx(plain.variance, abs=1e-4)
    assert fast.loglik >= plain.loglik - 1e-6
    assert fast.iterations < plain.iterations


def test_squarem_needs_at_least_half_the_cycles_on_a_leaderboard():
    x = _leaderboard(400, 600, 0.8, seed=9)
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    fast = fit_em(data, "2PL", TOL=1e-5, NCYCLES=20000)
    plain = fit_em(data, "2PL", TOL=1e-5, NCYCLES=20000, accelerate="none")
    assert 2 * fast.iterations <= plain.iterations
    assert fast.loglik >= plain.loglik - 1e-6


class _Contraction:
    """A linear EM-like map x -> c + B (x - c) with a known fixed point, objective -|x - c|^2."""

    def __init__(self, limit=1000):
        self.c, self.B = np.array([1.0, -2.0, 0.5]), np.diag([0.99, 0.9, 0.5])
        self.cycle, self.limit, self.converged = 0, limit, False

    def __call__(self, x):
        new = self.c + self.B @ (x - self.c)
        self.cycle += 1
        self.converged = np.abs(new - x).max() < 1e-10
        return new, -float(((x - self.c) ** 2).sum())

    @property
    def done(self):
        return self.converged or self.cycle >= self.limit


def test_squarem_on_a_known_contraction_finds_its_fixed_point_monotonely():
    em = _Contraction()
    x = squarem(em, np.zeros(3))
    np.testing.assert_allclose(x, em.c, atol=1e-8)
    plain = _Contraction()
    y = np.zeros(3)
    while not plain.done:
        y, _ = plain(y)
    assert em.cycle < plain.cycle / 5


def test_a_rejected_extrapolation_keeps_plain_em():
    em = _Contraction()
    x = squarem(em, np.zeros(3), project=lambda trial: None)  # every extrapolation refused: plain EM
    plain = _Contraction()
    y = np.zeros(3)
    while not plain.done:
        y, _ = plain(y)
    np.testing.assert_allclose(x, y, atol=0)


def test_bad_accelerator_is_a_one_line_error():
    x = pd.DataFrame(_leaderboard(50, 10, 0.0))
    with pytest.raises(ValidationError, match="accelerate") as err:
        fit_em(prepare_responses(x.to_numpy(), list(map(str, x.columns))), "2PL", accelerate="fast")
    assert "\n" not in str(err.value)
    with pytest.raises(ValidationError, match="accelerate='Ramsay' is not supported by engine='native'") as err:
        irtbridge.calibrate(x, "2PL", engine="native", accelerate="Ramsay")
    assert "\n" not in str(err.value)


def test_the_calibration_records_its_accelerator():
    x = pd.DataFrame(_leaderboard(200, 30, 0.3)).rename(columns=str)
    fit = irtbridge.calibrate(x, "2PL", engine="native", se=False, accelerate="none")
    assert fit.options["accelerate"] == "none"
    assert irtbridge.calibrate(x, "2PL", engine="native", se=False).options["accelerate"] == "squarem"


def test_standardise_moves_the_items_to_a_standard_latent_scale():
    """PX-EM's reduction (Liu, Rubin & Wu 1998) by hand: mean and sd of the node counts, a theta + d kept."""
    from irtbridge.em.identify import standardise

    theta = np.array([-1.0, 0.0, 1.0, 2.0])
    N = np.array([1.0, 2.0, 4.0, 1.0])  # mean (-1 + 0 + 4 + 2) / 8 = 0.625
    mu = 0.625
    sigma = np.sqrt((1 * 1.625**2 + 2 * 0.625**2 + 4 * 0.375**2 + 1 * 1.375**2) / 8)
    a, d = np.array([0.5, 2.0]), np.array([1.0, -3.0])
    new_a, new_d = standardise(a, d, N, theta)
    np.testing.assert_allclose(new_a, a * sigma, rtol=1e-14)
    np.testing.assert_allclose(new_d, d + a * mu, rtol=1e-14)
    z = np.linspace(-3, 3, 7)
    np.testing.assert_allclose(new_a[:, None] * z + new_d[:, None], a[:, None] * (mu + sigma * z) + d[:, None],
                               rtol=1e-12)


def _many_answers(finite: bool = True) -> np.ndarray:
    """150 respondents x 1,200 items, every cell answered: each posterior sits on a node or two, where the fit
    starts with PX-EM cycles. ``finite``: without the 6 items with fewer than 10 answers of one kind (as
    :func:`_leaderboard`), among them item 616, whose one right answer comes from the most able respondent:
    its slope has no finite maximum, so no fit of this matrix is a fixed point of any EM map."""
    rng = np.random.default_rng(3)
    theta = rng.normal(0.0, 1.0, 150)
    a, b = rng.lognormal(0.0, 0.3, 1200), rng.normal(0.0, 1.0, 1200)
    x = (rng.random((150, 1200)) < expit(a * (theta[:, None] - b))).astype(float)
    right = x.sum(axis=0)
    return x[:, np.minimum(right, 150 - right) >= 10] if finite else x


@pytest.mark.slow
def test_with_many_answers_each_the_fit_ends_at_a_fixed_point_of_plain_em():
    """Every respondent answers ~1,200 items (the PX-EM start runs). The default fit must end at a fixed point
    of mirt's plain EM map, not where its PX-EM cycles leave it: one plain cycle from its estimates moves no
    parameter by more than TOL's order (from 200 PX-EM cycles it does), within 200 cycles; and at the maximum
    plain EM from the start values reaches (parameters within 1e-4, as SQUAREM's own test). The quadrature
    likelihood has more than one maximum here (each respondent on a node or two): main's SQUAREM-accelerated
    PX-EM start jumped to another one (mean slope 1.161 against 1.063, log-likelihood -93661.030 against
    -93661.704), where plain EM from the start values (mirt's route) does not go. mirt itself is no oracle on
    this matrix: 16 respondents' marginal likelihoods are below 2.2e-308 and mirt floors them there (its
    logLik at these estimates, -93508.677, is that floored sum), so its EM maximises another function."""
    from irtbridge.em.accelerate import iterate
    from irtbridge.em.core import PX_ANSWERS, _Cycles
    from irtbridge.em.items import item_model
    from irtbridge.em.mstep import mstep

    x = _many_answers()
    assert x.shape[1] >= PX_ANSWERS
    data = prepare_responses(x, [f"i{k}" for k in range(x.shape[1])])
    nodes_, w = nodes(61)

    def plain_step(a_, d_):
        r, n, N, _ = estep(data, a_, d_, nodes_, np.log(w))
        new_a, new_d, _ = mstep("2PL", r, n, N, nodes_, a_, d_, 1.0)
        return max(np.abs(new_a - a_).max(), np.abs(new_d - d_).max())

    fit = fit_em(data, "2PL", TOL=1e-6, NCYCLES=5000)
    assert fit.converged and fit.iterations <= 200
    assert plain_step(fit.a, fit.d) < 1e-5
    plain = fit_em(data, "2PL", TOL=1e-6, NCYCLES=5000, accelerate="none")
    assert plain.converged
    np.testing.assert_allclose(fit.a, plain.a, atol=1e-4, rtol=0)
    np.testing.assert_allclose(fit.d, plain.d, atol=1e-4, rtol=0)
    assert fit.loglik >= plain.loglik - 1e-6
    run = lambda *args: estep(*args)  # noqa: E731
    model = item_model("2PL")
    px = _Cycles(data, model, 61, 1e-12, 200, run, None, expand=True)
    end = model.unpack(iterate(px, model.pack(model.start(data)), "squarem", model.project))
    assert plain_step(end.a, end.d) > 1e-4


def test_a_slope_without_a_finite_maximum_does_not_hold_the_px_start(monkeypatch):
    """With item 616 (:func:`_many_answers`) the largest change never falls below PX_TOL (its slope runs
    away), so on main the PX-EM start ran its NCYCLES // 5 cycles (1,000 of 5,000) every time; its
    log-likelihood stops rising after a few cycles, which ends the start (``core._px_start``)."""
    from irtbridge.em import core

    calls, original = [], core.standardise

    def counted(*args):
        calls.append(1)
        return original(*args)

    monkeypatch.setattr(core, "standardise", counted)
    x = _many_answers(finite=False)
    fit_em(prepare_responses(x, [f"i{k}" for k in range(x.shape[1])]), "2PL", TOL=1e-6, NCYCLES=100)
    assert 0 < len(calls) <= 8
