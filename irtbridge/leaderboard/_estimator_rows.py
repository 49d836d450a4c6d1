"""The accuracy estimators, one class each: the rows of :data:`irtbridge.leaderboard.estimators.REGISTRY`.

An estimator says whether it needs the 2PL calibration (``needs_irt``) and whether its interval is
design-based (``design_based``: it holds under simple random sampling of the items whatever the 2PL's fit;
otherwise it rests on the model), prepares what every new model shares (``prepare``), and gives one model's
frame total, its variance, degrees of freedom and the excluded items' prediction (``estimate``, an
:class:`~irtbridge.leaderboard._sample.Estimate`). The formulas are in the docstring of
:mod:`irtbridge.leaderboard.estimators`. A new estimator is a class here and a row of ``REGISTRY``; the
contract test (``tests/leaderboard/test_estimators.py``) runs over every row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from irtbridge.leaderboard._predictors import ridge_cv, ridge_predictions
from irtbridge.leaderboard._sample import Estimate, Sample, Shared, floored, frame_variance, irt_outputs, stratified_difference

__all__ = ["Estimator", "Mean", "AIPW", "PPI", "Composite", "PPIIRT", "PIRT", "GPIRT", "ALPHAS", "COMPOSITE"]

#: the ridge penalties ppi chooses among, by leave-one-out error on the sampled items
ALPHAS = np.array([1.0, 3.0, 10.0, 30.0, 100.0])
#: the composite weight of p-IRT is V / (V + COMPOSITE * d^2), d the p-IRT minus ppi difference
COMPOSITE = 3.0


class Estimator(Protocol):
    """The role of an accuracy estimator (a row of the registry)."""

    @property
    def name(self) -> str:
        """The estimator's name (``method=``)."""

    @property
    def needs_irt(self) -> bool:
        """Whether it uses the 2PL calibration."""

    @property
    def design_based(self) -> bool:
        """Whether its interval holds under random sampling of the items whatever the 2PL's fit."""

    def prepare(self, shared: Shared) -> Any:
        """What every new model of the call shares (predictions fitted once).

        Parameters
        ----------
        shared : Shared
            The checked arrays, the calibration and its predictions (None where ``needs_irt`` is False).

        Returns
        -------
        Any
            The state :meth:`estimate` receives.
        """

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:
        """One model's frame total, variance, degrees of freedom and excluded items' prediction.

        Parameters
        ----------
        state : Any
            What :meth:`prepare` returned.
        shared : Shared
            As :meth:`prepare` received it.
        s : Sample
            The model's sample.

        Returns
        -------
        Estimate
            The model's estimate.
        """


def _loo_variance(s: Sample, loo: np.ndarray) -> float:
    """The frame total's design-based variance from leave-one-out residuals on the sample."""
    return frame_variance(s, floored(float(np.var(s.y - loo, ddof=1)), s.k))


@dataclass(frozen=True)
class Mean:
    """The sample mean, with the finite-population variance of simple random sampling."""

    name: str = "mean"
    needs_irt: bool = False
    design_based: bool = True

    def prepare(self, shared: Shared) -> Any:  # noqa: D102 - the protocol's
        return None

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        y = s.y
        prob = shared.prob
        if prob.strata is not None:  # the stratified mean
            zero = np.zeros(len(prob.names))
            strat = stratified_difference(s, prob.strata, prob.pool, zero, zero[s.s_idx])
            if strat is not None:
                return strat
        var = frame_variance(s, floored(float(np.var(y, ddof=1)), s.k))
        return Estimate(y.sum() + y.mean() * s.n_u, var, s.k - 1, y.mean() * s.n_e)


@dataclass(frozen=True)
class AIPW:
    """AIPW of Zhang, Dorner & Hardt (NeurIPS 2025): ridge on the calibration models' answers (alpha fixed)."""

    name: str = "aipw"
    needs_irt: bool = False
    design_based: bool = True

    def prepare(self, shared: Shared) -> Any:  # noqa: D102
        prob = shared.prob
        return ridge_predictions(prob.features, prob.seen, prob.Y.T, shared.alpha)

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        pred, loo = state[0][:, s.m], state[1][s.obs, s.m]
        resid = s.y - pred[s.s_idx]
        n_u = s.n_u
        total = s.y.sum() + (n_u * (pred[s.u_pool].mean() + resid.mean() / (1.0 + s.k / n_u)) if n_u else 0.0)
        return Estimate(total, _loo_variance(s, loo), s.k - 1, float(pred[s.u_excl].sum() + s.n_e * resid.mean()))


@dataclass(frozen=True)
class PPI:
    """The default: the difference (GREG) estimator with ridge on the calibration answers and the 2PL prediction."""

    name: str = "ppi"
    needs_irt: bool = True
    design_based: bool = True

    def prepare(self, shared: Shared) -> Any:  # noqa: D102
        return None

    def _ppi(self, shared: Shared, s: Sample) -> Estimate:
        assert shared.irt_out is not None  # needs_irt: the front passes a calibration
        feats = np.column_stack([shared.prob.features, shared.irt_out[0][s.m]])
        pred, loo, _ = ridge_cv(feats, s.s_idx, s.y, ALPHAS)
        if shared.prob.strata is not None and self.name == "ppi":  # a stratified draw
            strat = stratified_difference(s, shared.prob.strata, shared.prob.pool, pred, loo)
            if strat is not None:
                return strat
        mr = float(np.mean(s.y - pred[s.s_idx]))
        total = s.y.sum() + pred[s.u_pool].sum() + s.n_u * mr
        return Estimate(total, _loo_variance(s, loo), s.k - 1, float(pred[s.u_excl].sum() + s.n_e * mr))

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        return self._ppi(shared, s)


@dataclass(frozen=True)
class Composite(PPI):
    """ppi pulled toward p-IRT where the two agree; ppi's interval."""

    name: str = "composite"
    design_based: bool = False

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        assert shared.irt_out is not None
        est = self._ppi(shared, s)
        pirt_total = s.y.sum() + shared.irt_out[0][s.m][s.u_pool].sum()
        d2 = (pirt_total - est.total) ** 2
        w = est.variance / (est.variance + COMPOSITE * d2) if est.variance + d2 > 0 else 0.0
        return Estimate(w * pirt_total + (1 - w) * est.total, est.variance, est.df, est.excluded)


@dataclass(frozen=True)
class PPIIRT:
    """The difference estimator with the 2PL prediction alone (intercept and slope fitted on the sample)."""

    name: str = "ppi_irt"
    needs_irt: bool = True
    design_based: bool = True

    def prepare(self, shared: Shared) -> Any:  # noqa: D102
        return None

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        assert shared.irt_out is not None
        f_all = shared.irt_out[0][s.m]
        Z = np.column_stack([np.ones(s.k), shared.irt_out[1][s.m, s.obs]])
        beta = np.linalg.lstsq(Z.T @ Z + 1e-8 * np.eye(2), Z.T @ s.y, rcond=None)[0]
        e = s.y - Z @ beta
        df = max(s.k - 2, 1)
        s2 = floored(float(e @ e) / df, s.k)
        total = s.y.sum() + beta[0] * s.n_u + beta[1] * f_all[s.u_pool].sum()
        excl = float(beta[0] * s.n_e + beta[1] * f_all[s.u_excl].sum())
        return Estimate(total, frame_variance(s, s2), df, excl)


@dataclass(frozen=True)
class PIRT:
    """p-IRT of tinyBenchmarks (Maia Polo et al. 2024); interval from the leave-one-out residuals' bias and spread."""

    name: str = "pirt"
    needs_irt: bool = True
    design_based: bool = False

    def prepare(self, shared: Shared) -> Any:  # noqa: D102
        return None

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        assert shared.irt_out is not None
        pred, loo = shared.irt_out[0][s.m], shared.irt_out[1][s.m, s.obs]
        e = s.y - loo
        s2 = floored(float(np.var(e, ddof=1)), s.k)
        var = s.n_u**2 * (float(e.mean()) ** 2 + (1.0 - s.k / s.n_pool) * s2 / s.k)
        return Estimate(s.y.sum() + pred[s.u_pool].sum(), var, s.k - 1, float(pred[s.u_excl].sum()))


@dataclass(frozen=True)
class GPIRT(PIRT):
    """gp-IRT of tinyBenchmarks: ``lambda * mean + (1 - lambda) * pirt``, lambda from the calibration models."""

    name: str = "gpirt"

    def prepare(self, shared: Shared) -> Any:  # noqa: D102
        """tinyBenchmarks' weight of the sample mean, from the calibration models' own answers to the sample."""
        prob, irt = shared.prob, shared.irt
        assert irt is not None
        X, seen = prob.features, prob.seen
        k, J = len(seen), X.shape[0]
        Yc = X[seen].T  # calibration models x k (filled answers)
        truth = X.mean(axis=0)
        pred = irt_outputs(irt, prob, Yc)[0][0]
        unseen = np.setdiff1d(np.arange(J), seen)
        pirt = (Yc.sum(axis=1) + pred[:, unseen].sum(axis=1)) / J
        b2 = float(np.mean((pirt - truth) ** 2))
        sigma2 = float(np.mean(truth * (1.0 - truth))) / k * (1.0 - k / J)
        return b2 / (b2 + sigma2) if b2 + sigma2 > 0 else 0.5

    def estimate(self, state: Any, shared: Shared, s: Sample) -> Estimate:  # noqa: D102
        lam = float(state)
        p = super().estimate(None, shared, s)
        mean = Mean().estimate(None, shared, s)
        var = (lam * np.sqrt(mean.variance) + (1.0 - lam) * np.sqrt(p.variance)) ** 2
        return Estimate(lam * mean.total + (1.0 - lam) * p.total, var, s.k - 1,
                        lam * mean.excluded + (1.0 - lam) * p.excluded)
