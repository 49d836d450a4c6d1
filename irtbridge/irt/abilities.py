"""Ability estimation in the native kernel: EAP, MAP and ML, vectorized over respondents."""

from __future__ import annotations

import warnings
from typing import Any, Iterator, Mapping

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.special import expit, log_expit

from irtbridge._constraints import Choice, Int, Number, Pair, constraints
from irtbridge._validation import check_choice
from irtbridge.exceptions import ConvergenceWarning, ValidationError
from irtbridge.irt import fast as kernel
from irtbridge.irt.bank import METHODS, MODEL, ItemBank, as_item_bank
from irtbridge.irt.functions import item_offsets

__all__ = ["estimate_abilities"]

# Cells processed at once in (respondents x items x categories) temporaries: bounds memory at a few
# tens of MB whatever the data size, while keeping numpy calls large enough to amortize overhead.
_CHUNK_CELLS = 1 << 21
_MAX_ITER = 100
_MAX_HALVINGS = 40
_MAX_STEP = 1.0
_STEP_TOL = 1e-10
# --------------------------------------------------------------------------------------------------
# Ability estimation
# --------------------------------------------------------------------------------------------------


def _responses(responses: Any, bank: ItemBank, offsets: Mapping[str, float] | None = None
               ) -> tuple[np.ndarray, np.ndarray, ItemBank, pd.Index]:
    """Validate responses against the bank: (categories as int, observed mask, matching bank, row index).

    ``offsets``: each item's lowest response (a calibration's ``item_mins``): responses coded from it
    (1..K) become the categories 0..K-1 the item functions use, as mirt subtracts its ``mins``."""
    if isinstance(responses, pd.Series):
        responses = responses.to_frame().T
        responses.index = pd.RangeIndex(1)
    if isinstance(responses, pd.DataFrame):
        cols = [str(c) for c in responses.columns]
        if len(set(cols)) != len(cols):
            dup = sorted({c for c in cols if cols.count(c) > 1})
            raise ValidationError(f"responses has duplicate item columns: {', '.join(map(repr, dup[:10]))}")
        pos = {n: i for i, n in enumerate(bank.names)}
        unknown = [c for c in cols if c not in pos]
        if unknown:
            raise ValidationError(
                f"responses has column(s) {', '.join(map(repr, unknown[:10]))} that are not items of the bank; "
                "columns must be item names (a subset of them is fine)"
            )
        non_numeric = [str(c) for c, dt in responses.dtypes.items()
                       if not (pd.api.types.is_numeric_dtype(dt) or pd.api.types.is_bool_dtype(dt))]
        if non_numeric:
            raise ValidationError(
                f"responses has non-numeric column(s) {', '.join(map(repr, non_numeric[:5]))}; "
                "every item must hold numbers (NaN for missing)"
            )
        values = responses.to_numpy(dtype=float, na_value=np.nan)
        index = responses.index
        if cols != list(bank.names):
            bank = bank.take(np.array([pos[c] for c in cols], dtype=np.int64))
    else:
        try:
            values = np.array(responses, dtype=float)
        except (TypeError, ValueError):
            raise ValidationError("responses holds non-numeric cells; every item must hold numbers (NaN for missing)") from None
        if values.ndim == 1:
            values = values[None, :]
        if values.ndim != 2:
            raise ValidationError(f"responses must be two-dimensional (respondents x items), got shape {values.shape}")
        if values.shape[1] != bank.n_items:
            raise ValidationError(
                f"responses has {values.shape[1]} column(s) but the bank has {bank.n_items} item(s); pass a "
                "DataFrame with item names as columns to score a subset of items"
            )
        index = pd.RangeIndex(values.shape[0])
    if values.shape[0] == 0:
        raise ValidationError("responses has no respondents (no rows)")
    if np.isinf(values).any():
        raise ValidationError("responses has infinite values; use NaN for missing responses")
    shift = np.array([float((offsets or {}).get(n, 0.0)) for n in bank.names])
    values = values - shift[None, :]
    observed = ~np.isnan(values)
    empty = np.flatnonzero(~observed.any(axis=1))
    if empty.size:
        raise ValidationError(
            f"responses: respondent(s) {list(index[empty[:10]])} answered no item (all missing); drop those rows"
        )
    top = (bank.n_categories - 1)[None, :]
    if bank.dichotomous:
        bad = observed & (values != 0) & (values != 1)
    else:
        bad = observed & ((values != np.round(values)) | (values < 0) | (values > top))
    if bad.any():
        r, c = np.argwhere(bad)[0]
        low = shift[c]
        allowed = (f"{low:g} or {low + 1:g}" if bank.dichotomous
                   else f"an integer category from {low:g} to {low + top[0, c]:g}")
        raise ValidationError(
            f"responses: item {bank.names[c]!r} holds {values[r, c] + low:g} for respondent {index[r]!r}; it must be "
            f"{allowed} (NaN for missing)"
        )
    cats = np.where(observed, values, 0.0).astype(np.int64)
    return cats, observed, bank, index


def _chunks(n_rows: int, cells_per_row: int) -> Iterator[slice]:
    step = max(1, _CHUNK_CELLS // max(1, cells_per_row))
    for start in range(0, n_rows, step):
        yield slice(start, min(n_rows, start + step))


def _grid_loglik(bank: ItemBank, cats: np.ndarray, observed: np.ndarray, grid: np.ndarray, fast: bool = False) -> np.ndarray:
    """Log-likelihood of every response pattern at every grid point, shape (n_respondents, n_grid).

    A matrix product over the grid instead of a loop over respondents: for dichotomous items
    ``x @ log P + (1 - x) @ log Q`` (missing cells contribute nothing), for polytomous items a sparse
    one-hot of the observed categories times the log category probabilities.
    """
    logp = kernel.log_category_probs(bank, grid)  # (Q, J, K)
    n, j = cats.shape
    if bank.dichotomous:
        x = cats.astype(float)
        if fast and observed.all():
            # One product instead of two: x @ logit(P) + sum log Q. It cancels to ~1e-16 * sum|log Q|,
            # harmless for EAP weights but not for locating the maximum of a nearly flat likelihood.
            logit = (logp[:, :, 1] - logp[:, :, 0]).T  # (J, Q)
            return x @ logit + logp[:, :, 0].sum(axis=1)[None, :]
        return x @ logp[:, :, 1].T + (observed - x) @ logp[:, :, 0].T
    kmax = logp.shape[2]
    flat = np.where(np.isfinite(logp), logp, 0.0).reshape(len(grid), j * kmax).T  # (J*K, Q)
    rows, cols = np.nonzero(observed)
    onehot = sparse.csr_matrix(
        (np.ones(rows.size), (rows, cols * kmax + cats[rows, cols])), shape=(n, j * kmax)
    )
    return np.asarray(onehot @ flat)


def _pattern_terms(bank: ItemBank, theta: np.ndarray, cats: np.ndarray, observed: np.ndarray):
    """Per-respondent log-likelihood, its first and second derivatives, and a positive curvature.

    Each row is evaluated at its own theta. The curvature is the Fisher information of the answered
    items, used when the observed curvature is not negative (the 3PL/4PL log-likelihood is not concave).
    """
    n, j = cats.shape
    out = np.zeros((4, n))
    kmax = bank.max_categories
    complete = bool(observed.all())
    for sl in _chunks(n, j * kmax):
        th, x, m = theta[sl], cats[sl], observed[sl]
        if bank.dichotomous:
            z = bank.a[None, :] * (th[:, None] - bank.b[None, :])
            ll, d1, d2, info = kernel.dich_terms(bank, z, x)
        elif bank.model == "graded":
            # Only the two cumulative curves around the observed category matter:
            # log P(X = x) = log expit(z_x) + log expit(-z_{x+1}) + const.
            d, gaps = bank._intercepts, bank._log_gaps
            assert d is not None and gaps is not None  # set on every graded bank
            rows = np.arange(j)[None, :]
            zx = bank.a[None, :] * th[:, None] + d[rows, x]
            zx1 = bank.a[None, :] * th[:, None] + d[rows, x + 1]
            sx, sx1 = expit(zx), expit(zx1)
            ll = log_expit(zx) + log_expit(-zx1) + gaps[rows, x]
            # a (1 - P*_x - P*_{x+1}) with 1 - P*_x taken as expit(-z_x): exact where both are tiny
            d1 = bank.a[None, :] * (expit(-zx) - sx1)
            d2 = -(bank.a[None, :] ** 2) * (sx * expit(-zx) + sx1 * expit(-zx1))
            info = -d2
        else:
            logp = kernel.gpcm_logp(bank, th)  # (n, J, K)
            probs = np.exp(logp)
            k = np.arange(kmax, dtype=float)
            mean = probs @ k
            var = (probs * (k[None, None, :] - mean[..., None]) ** 2).sum(axis=-1)
            ll = np.take_along_axis(logp, x[..., None], axis=-1)[..., 0]
            # a (x - E[X]) as -a sum_k (k - x) p_k, which does not cancel when E[X] is close to x
            d1 = -bank.a[None, :] * (probs * (k[None, None, :] - x[..., None])).sum(axis=-1)
            d2 = -(bank.a[None, :] ** 2) * var
            info = -d2
        for row, value in enumerate((ll, d1, d2, info)):
            out[row, sl] = value.sum(axis=1) if complete else np.where(m, value, 0.0).sum(axis=1)
    return out


def _maximize(bank, cats, observed, start, lo, hi, prior):
    """Maximize each row's log-likelihood (plus log prior for MAP) over [lo, hi], vectorized.

    A safeguarded Newton ascent on the rows not yet converged. Every accepted step must not decrease
    the objective (else it is halved), so the iteration climbs from the best grid point towards the
    maximum in its basin. The step is Newton's where the curvature is negative and Fisher scoring's
    elsewhere (the 3PL/4PL log-likelihood is not concave). Two safeguards handle the flat,
    exponentially small tails of very steep items, where plain Newton crawls at 1/a per step: each row
    keeps a bracket [left, right] around its current ability from points where the gradient was
    positive / negative, and once both ends are known, a step that leaves the bracket or does not halve
    the step before last is replaced by bisection (Numerical Recipes' ``rtsafe`` rule); without a
    bracket, a step that is not shrinking is at least doubled.
    """
    n = start.size
    everyone = np.arange(n)
    theta = start.copy()

    def terms(idx, th):
        t = _pattern_terms(bank, th, cats[idx], observed[idx])
        if prior is not None:
            mu, sd = prior
            t[0] -= 0.5 * ((th - mu) / sd) ** 2
            t[1] -= (th - mu) / sd**2
            t[2] -= 1.0 / sd**2
            t[3] += 1.0 / sd**2
        return t

    def newton_step(idx):
        # No floor on the curvature: on the flat tails of steep items both the gradient and the
        # curvature are tiny and only their ratio is meaningful. Zero curvature: a capped step uphill.
        curv = np.where(-hess[idx] > 0, -hess[idx], fisher[idx])
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            step = np.where(curv > 0, grad[idx] / curv, np.sign(grad[idx]) * _MAX_STEP)
        return np.clip(step, -_MAX_STEP, _MAX_STEP)

    left, right = np.full(n, -np.inf), np.full(n, np.inf)

    def see(idx, points, g):
        # Only points on the matching side of the current ability tighten the bracket.
        here = theta[idx]
        left[idx] = np.where((g > 0) & (points <= here), np.maximum(left[idx], points), left[idx])
        right[idx] = np.where((g < 0) & (points >= here), np.minimum(right[idx], points), right[idx])

    f, grad, hess, fisher = terms(everyone, theta)
    see(everyone, theta, grad)

    last, before_last, proposed = np.full(n, np.inf), np.full(n, np.inf), np.full(n, np.inf)
    active = everyone
    converged = np.zeros(n, dtype=bool)
    for _ in range(_MAX_ITER):
        if active.size == 0:
            break
        step = newton_step(active)
        old = theta[active].copy()
        lft, rgt = left[active], right[active]
        bracketed = np.isfinite(lft) & np.isfinite(rgt)
        # "Not shrinking" compares Newton's own proposals: they stay ~1/a on a tail and fall
        # quadratically near a regular maximum.
        crawl = ~bracketed & np.isfinite(last[active]) & (np.abs(step) > 0.5 * proposed[active])
        proposed[active] = np.abs(step)
        step = np.where(crawl, np.sign(step) * np.minimum(np.maximum(np.abs(step), 2 * last[active]), _MAX_STEP), step)
        cand = np.clip(old + step, lo, hi)
        bisect = bracketed & ((cand <= lft) | (cand >= rgt) | (np.abs(step) > 0.5 * before_last[active]))
        cand[bisect] = 0.5 * (lft[bisect] + rgt[bisect])

        sub, cand_sub = active, cand
        for _ in range(_MAX_HALVINGS):
            fc, gc, hc, ic = terms(sub, cand_sub)
            ok = fc >= f[sub] - 1e-12 * (1.0 + np.abs(f[sub]))
            acc = sub[ok]
            theta[acc], f[acc], grad[acc], hess[acc], fisher[acc] = cand_sub[ok], fc[ok], gc[ok], hc[ok], ic[ok]
            sub = sub[~ok]
            if sub.size == 0:
                break
            cand_sub = 0.5 * (theta[sub] + cand_sub[~ok])

        now = theta[active]
        moved = np.abs(now - old)
        before_last[active], last[active] = last[active], moved
        left[active] = np.where(left[active] > now, -np.inf, left[active])
        right[active] = np.where(right[active] < now, np.inf, right[active])
        see(active, now, grad[active])
        narrow = (right[active] - left[active]) < _STEP_TOL
        pinned = ((now >= hi) & (grad[active] > 0)) | ((now <= lo) & (grad[active] < 0))
        done = (np.abs(newton_step(active)) < _STEP_TOL) | pinned | (moved == 0) | narrow
        converged[active[done]] = True
        active = active[~done]
    at_bound = ((theta >= hi) & (grad > 0)) | ((theta <= lo) & (grad < 0))
    return theta, hess, at_bound, converged


@constraints(model=MODEL, method=Choice(METHODS, ignore_case=True),
             prior=Pair(second=Number(low=0.0, low_open=True), labels=("prior mean", "prior standard deviation")),
             bounds=Pair(increasing=True), quadrature=Int(low=3))
def estimate_abilities(
    responses: Any,
    items: Any,
    model: str | None = None,
    method: str = "EAP",
    prior: tuple[float, float] = (0.0, 1.0),
    bounds: tuple[float, float] = (-6.0, 6.0),
    quadrature: int = 61,
    mins: Any = True,
) -> pd.DataFrame:
    """Estimate each respondent's ability from their responses and known item parameters.

    Parameters
    ----------
    responses : pandas.DataFrame, pandas.Series or array-like
        Respondents x items: 0/1 for dichotomous models, categories 0..K-1 for ``"graded"``/``"gpcm"``,
        NaN for missing (skipped). DataFrame columns are matched to item names and may be a subset of the
        items; an array needs one column per item, in bank order; a 1-D input is one respondent.
    items : Calibration, ItemBank or pandas.DataFrame
        Item parameters (see :func:`as_item_bank`).
    model : str, optional
        Required when ``items`` is a DataFrame.
    method : {"EAP", "MAP", "ML"}
        Posterior mean, posterior mode, or maximum likelihood (mirt's ``fscores(method = ...)``).
    prior : (float, float)
        Mean and standard deviation of the normal prior (EAP and MAP). For a calibration that frees the
        latent variance (mirt's Rasch), ``(cal.latent_mean, cal.latent_var ** 0.5)`` reproduces mirt's
        own ``fscores`` on that fit.
    bounds : (float, float)
        Ability range: the quadrature range for EAP (mirt's ``theta_lim``), and the search interval for
        MAP and ML.
    quadrature : int
        Number of equally spaced grid points over ``bounds`` (mirt's ``quadpts``); MAP and ML start from
        the best grid point.
    mins : bool or mapping of str to float, default True
        Each item's lowest response, subtracted before scoring as mirt subtracts its ``mins``: True takes
        them from a calibration (``Calibration.item_mins``: 1 for Likert items coded 1..K, so the data a
        fit was made from score as they are); False reads every item as coded from 0; a mapping item →
        lowest response sets them. An :class:`ItemBank` or DataFrame knows none (every item from 0).

    Returns
    -------
    pandas.DataFrame
        Indexed like ``responses`` (0..n-1 for arrays), with columns ``theta``, ``se`` and ``at_bound``
        (True where a MAP/ML estimate is a bound because the maximum lies on or beyond it, e.g. all-correct
        or all-wrong patterns under ML; ``theta`` is then the bound and ``se`` is NaN).

    Raises
    ------
    ValidationError
        Unknown method, bad prior/bounds/quadrature, responses that do not fit the items, or a respondent
        with no answered item.

    Warns
    -----
    ConvergenceWarning
        When a MAP/ML estimate did not converge in 100 Newton iterations.

    Notes
    -----
    EAP uses the grid ``theta_q = linspace(bounds[0], bounds[1], quadrature)`` with weights
    ``w_q ∝ phi((theta_q - mu) / sigma)`` normalized to sum 1, exactly as mirt:
    ``theta = sum_q theta_q L(theta_q) w_q / sum_q L(theta_q) w_q`` and ``se`` the posterior standard
    deviation. MAP maximizes ``log L(theta) + log phi((theta - mu) / sigma)`` and ML maximizes
    ``log L(theta)`` within ``bounds``; their ``se`` is ``1 / sqrt(-d^2/dtheta^2 objective)`` (the observed
    information, as mirt's ``nlm`` Hessian). mirt equivalent::

        fscores(mod, method = "EAP", quadpts = 61, theta_lim = c(-6, 6), mean = mu, cov = sigma^2,
                response.pattern = X, full.scores.SE = TRUE)

    mirt returns ``+-Inf`` (SE ``NA``) for ML on all-correct/all-wrong patterns; here ``theta`` is the
    bound and ``at_bound`` is True. MAP and ML climb from the best grid point (mirt's ``nlm`` starts from
    the EAP estimate), so with a multimodal 3PL/4PL likelihood they find the highest mode up to the grid
    resolution; a peak narrower than the grid spacing (items with discriminations in the hundreds) can
    be missed, so raise ``quadrature`` for such items. mirt's own default grid is 121 points; pass ``quadpts = 61`` there
    (or ``quadrature = 121`` here) to compare.

    Examples
    --------
    >>> import pandas as pd
    >>> items = pd.DataFrame({"a": [1.0, 1.5, 0.8], "b": [-1.0, 0.0, 1.0]}, index=["q1", "q2", "q3"])
    >>> x = pd.DataFrame({"q1": [1, 1, 0], "q2": [0, 1, 0], "q3": [0, 1, 0]}, index=["ann", "bob", "cy"])
    >>> est = estimate_abilities(x, items, model="2PL", method="ML")
    >>> est["at_bound"].tolist()
    [False, True, True]
    >>> est.loc["bob", "theta"]
    6.0
    """
    bank = as_item_bank(items, model)
    method = check_choice(method, "method", METHODS, ignore_case=True)  # its own spelling (declared above)
    (mu, sd), (lo, hi) = (float(prior[0]), float(prior[1])), (float(bounds[0]), float(bounds[1]))
    quadrature = int(quadrature)
    offsets = item_offsets(items, mins, bank)
    cats, observed, bank, index = _responses(responses, bank, offsets)
    grid = np.linspace(lo, hi, quadrature)

    loglik = np.empty((cats.shape[0], quadrature))
    for sl in _chunks(cats.shape[0], quadrature):
        loglik[sl] = _grid_loglik(bank, cats[sl], observed[sl], grid, fast=method == "EAP")
    n = cats.shape[0]
    if method == "EAP":
        # mirt: W = dnorm(grid, mu, sd) / sum(...); the normalizing constant cancels in the ratio.
        loglik -= 0.5 * ((grid - mu) / sd) ** 2
        loglik -= loglik.max(axis=1, keepdims=True)
        np.exp(loglik, out=loglik)
        moments = loglik @ np.column_stack([np.ones_like(grid), grid, grid**2])
        theta = moments[:, 1] / moments[:, 0]
        var = np.maximum(moments[:, 2] / moments[:, 0] - theta**2, 0.0)
        return pd.DataFrame(
            {"theta": theta, "se": np.sqrt(var), "at_bound": np.zeros(n, dtype=bool)}, index=index
        )
    use_prior = (mu, sd) if method == "MAP" else None
    if use_prior is not None:
        loglik -= 0.5 * ((grid - mu) / sd) ** 2
    start = grid[np.argmax(loglik, axis=1)]
    del loglik
    theta = start.copy()
    hess = np.full(n, np.nan)
    at_bound = np.zeros(n, dtype=bool)
    converged = np.ones(n, dtype=bool)
    free = np.ones(n, dtype=bool)
    if method == "ML":
        # Patterns whose every answered item pulls the same way (top category on a > 0 items, bottom on
        # a < 0) have a likelihood increasing without bound: the estimate is the bound (mirt: +-Inf).
        # Deciding this from the responses, not from the gradient, keeps it right for steep items whose
        # gradient underflows to 0 long before the bound.
        top = (bank.n_categories - 1)[None, :]
        pos, neg = (bank.a > 0)[None, :], (bank.a < 0)[None, :]
        flat = (bank.a == 0)[None, :] | ~observed
        rising = (flat | (pos & (cats == top)) | (neg & (cats == 0))).all(axis=1)
        falling = (flat | (pos & (cats == 0)) | (neg & (cats == top))).all(axis=1)
        theta[rising & ~falling] = hi
        theta[falling & ~rising] = lo
        at_bound = rising != falling
        free = ~at_bound
    if free.any():
        idx = np.flatnonzero(free)
        th, hs, ab, cv = _maximize(bank, cats[idx], observed[idx], start[idx], lo, hi, use_prior)
        theta[idx], hess[idx], at_bound[idx], converged[idx] = th, hs, ab, cv
    if not converged.all():
        warnings.warn(
            f"{int((~converged).sum())} {method} estimate(s) did not converge in {_MAX_ITER} Newton iterations; "
            "their theta is the last iterate",
            ConvergenceWarning,
            stacklevel=2,
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        se = np.where((-hess > 0) & ~at_bound, 1.0 / np.sqrt(-hess), np.nan)
    return pd.DataFrame({"theta": theta, "se": se, "at_bound": at_bound}, index=index)
