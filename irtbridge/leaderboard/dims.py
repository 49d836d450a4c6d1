"""How many dimensions: held-out prediction of single answers by the D-factor 2PL, D = 1, 2, ...

:func:`choose_dimensions` holds out a share of each model's answered cells at random, fits the D-factor 2PL
(:func:`irtbridge.em.factors.fit_factors`, exploratory) on the rest for each D, scores every model from its
own training cells (EAP, ``F1..FD``) and predicts its held-out answers by ``P(correct | theta_hat)``. Per D it
reports the held-out log-likelihood (mean per cell), the accuracy (a cell predicted right when ``P >= 0.5``
and the answer is 1, or ``P < 0.5`` and it is 0) and the Brier score, with standard errors, and chooses D.
This is the protocol of BenchMIRT (Ai2, 2026) and of tinyBenchmarks' choice of D (Maia Polo et al. 2024,
by validation), on single answers rather than on whole models.

**The rule.** ``m_D`` is the held-out log-likelihood per cell of D; the standard error of a difference
``m_D - m_E`` is computed on the paired per-cell differences, clustered by model (the cells of one model are
not independent: its ability is estimated once). With ``D*`` the D of the largest ``m_D``, D is *eligible*
when ``m_D* - m_D <= SE(m_D* - m_D)`` (one standard error of the best, Breiman et al. 1984) and, for D > 1,
``m_D - m_1 > SE(m_D - m_1)`` (above the one-dimensional fit beyond noise); the chosen D is the smallest
eligible one. D = 1 is eligible whenever ``D*`` is not above it by more than one standard error, so more
than one dimension is chosen only where it predicts held-out answers better than one does.

**The fits.** D = 1 integrates on mirt's 61 quadrature points, D >= 2 by quasi-Monte-Carlo (``qmc_points``
scrambled Sobol points, as mirt's ``QMCEM``; the same fixed points for every fit): a full grid of 31^2 or
15^3 points costs minutes already on 320 x 735, and a prediction needs no more. Every fit has the weak
priors of :data:`DIMS_PRIORS` (slopes ``N(0, 2)``, intercepts ``N(0, 3)``): an item every training model
answered right would otherwise predict ``P = 1`` and a held-out 0 an infinite loss.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from irtbridge._summary import HasSummary, Line, Strong, Summary
from irtbridge._ties import tie_argmax, tie_greater
from irtbridge._validation import check_int, check_number, check_seed
from irtbridge.exceptions import ValidationError

__all__ = ["DimensionsResult", "choose_dimensions", "DIMS_PRIORS", "RULE"]

#: the priors of every fit (mirt's ``(dist, p1, p2)``; p2 is the standard deviation)
DIMS_PRIORS: Mapping[str, tuple] = {"a": ("norm", 0.0, 2.0), "d": ("norm", 0.0, 3.0)}
RULE = ("the smallest D within one standard error of the best held-out log-likelihood and, for D > 1, above "
        "D = 1's by more than one standard error (paired per-cell differences, clustered by model)")
_EPS = 1e-12


@dataclass(frozen=True, eq=False)
class DimensionsResult(HasSummary):
    """What :func:`choose_dimensions` measured (frozen; nothing recomputed on display).

    Attributes
    ----------
    table : DataFrame
        One row per D (the index, ``D``): ``loglik`` (held-out log-likelihood, mean per cell), ``loglik_se``,
        ``gain`` (``loglik`` minus D = 1's), ``gain_se`` (its paired standard error), ``accuracy``,
        ``accuracy_se``, ``brier``, ``train_loglik`` (the fit's marginal log-likelihood on the training cells,
        summed over draws), ``converged`` (every draw), ``seconds``.
    chosen : int
        The chosen D (:data:`RULE`).
    best : int
        The D of the largest held-out log-likelihood.
    facts : mapping
        The headline numbers: shape, held-out cells, draws, seed, chosen, best, the rule.
    notes : tuple of str
        What was left out and fits that did not converge.
    """

    table: pd.DataFrame
    chosen: int
    best: int
    facts: Mapping[str, Any]
    notes: tuple[str, ...] = field(default_factory=tuple)

    def summary(self) -> Summary:
        """The headline (the chosen D beside D = 1) and the table per D.

        Returns
        -------
        Summary
            Text, HTML and dict renderings (``to_dict()`` is the ``--json`` shape).
        """
        f, t = self.facts, self.table
        one, ch = t.loc[1], t.loc[self.chosen]
        lines = [
            Line.of("data", f"{f['n_models']:,} models x {f['n_items']:,} items; {f['n_heldout']:,} answers held out "
                            f"({f['holdout']:.0%} of each model's, {f['draws']} draw(s), seed {f['seed']})"),
            Line.of("chosen", "chosen ", Strong(f"D = {self.chosen}"), f" (best held-out log-likelihood: D = {self.best})"),
            Line.of("one", f"D = 1: held-out log-likelihood {one['loglik']:.4f} per answer, accuracy "
                           f"{one['accuracy']:.4f}"),
        ]
        if self.chosen > 1:
            lines.append(Line.of("gain", f"D = {self.chosen}: held-out log-likelihood {ch['loglik']:.4f} "
                                         f"(+{ch['gain']:.4f} +/- {ch['gain_se']:.4f}), accuracy {ch['accuracy']:.4f}"))
        lines.append(Line.of("rule", f"rule: {RULE}"))
        data = {**dict(f), "dims": _records(t)}
        return Summary(title=f"Dimensions by held-out answers: D = {self.chosen}", lines=tuple(lines),
                       tables=(("Held-out prediction per D", t),), notes=self.notes, data=data,
                       digits={"loglik": 4, "loglik_se": 4, "gain": 4, "gain_se": 4, "accuracy": 4,
                               "accuracy_se": 4, "brier": 4, "train_loglik": 1, "seconds": 1, "*": 4})

    def plot(self, ax: Any = None) -> Any:
        """Held-out log-likelihood per answer against D, with +/- one standard error of the gain over D = 1.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (default a new figure).

        Returns
        -------
        matplotlib Axes
            The axes drawn on.
        """
        from irtbridge._plotting import single_axes

        ax = single_axes(ax)
        t = self.table
        ax.errorbar(t.index, t["loglik"], yerr=t["gain_se"], marker="o", capsize=3)
        ax.axvline(self.chosen, color="grey", linestyle=":", label=f"chosen D = {self.chosen}")
        ax.set_xlabel("D (factors)")
        ax.set_ylabel("held-out log-likelihood per answer")
        ax.legend()
        return ax


def _records(table: pd.DataFrame) -> list[dict[str, Any]]:
    return [{"D": int(d), **{k: (bool(v) if k == "converged" else float(v)) for k, v in row.items()}}
            for d, row in table.iterrows()]


def _fit(data: Any, D: int, *, qmc_points: int, priors: Mapping[str, tuple] | None, TOL: float, NCYCLES: int,
         seed: int) -> Any:
    """The D-factor 2PL on the training cells: the one place the engine is called."""
    from irtbridge.em.factors import fit_factors

    if D == 1:
        return fit_factors(data, 1, method="quadrature", priors=priors, TOL=TOL, NCYCLES=NCYCLES)
    return fit_factors(data, D, method="qmc", quadpts=qmc_points, priors=priors, TOL=TOL, NCYCLES=NCYCLES, seed=seed)


def _as_matrix(responses: Any) -> pd.DataFrame:
    if isinstance(responses, pd.DataFrame):
        frame = responses
    else:
        values = np.asarray(responses, dtype=float)
        if values.ndim != 2:
            raise ValidationError(f"responses: expected a models x items matrix, got {values.ndim} dimension(s)")
        frame = pd.DataFrame(values, columns=[f"item{j + 1}" for j in range(values.shape[1])])
    try:
        frame = frame.astype(float)
    except (TypeError, ValueError):
        raise ValidationError("responses: every cell must be 0, 1 or empty (NaN)") from None
    v = frame.to_numpy()
    bad = ~np.isnan(v) & (v != 0) & (v != 1)
    if bad.any():
        i, j = np.argwhere(bad)[0]
        raise ValidationError(f"responses: cells must be 0, 1 or empty, found {v[i, j]!r} "
                              f"(model {frame.index[i]!r}, item {frame.columns[j]!r})")
    return frame


def holdout_cells(observed: np.ndarray, share: float, rng: np.random.Generator) -> np.ndarray:
    """A boolean mask of held-out cells: ``round(share * n_i)`` of model i's ``n_i`` answered cells at random
    (at least one and at most ``n_i - 1``; none for a model with fewer than two answers).

    Parameters
    ----------
    observed : ndarray of bool
        Models x items, True where answered.
    share : float
        The share of each model's answers to hold out, in (0, 1).
    rng : numpy.random.Generator
        The draws.

    Returns
    -------
    ndarray of bool
        Models x items.

    Examples
    --------
    >>> m = holdout_cells(np.ones((3, 10), dtype=bool), 0.2, np.random.default_rng(0))
    >>> m.sum(axis=1).tolist()
    [2, 2, 2]
    """
    out = np.zeros_like(observed, dtype=bool)
    for i, row in enumerate(observed):
        cols = np.flatnonzero(row)
        if cols.size < 2:
            continue
        k = int(min(max(round(share * cols.size), 1), cols.size - 1))
        out[i, rng.choice(cols, size=k, replace=False)] = True
    return out


def _cluster_se(values: np.ndarray, rows: np.ndarray) -> float:
    """The standard error of the mean of ``values`` (one per cell), clustered by model (``rows``)."""
    n = values.size
    if n < 2:
        return float("nan")
    mean = values.mean()
    sums = np.bincount(rows, weights=values - mean)
    g = np.count_nonzero(np.bincount(rows))
    if g < 2:
        return float(values.std(ddof=1) / np.sqrt(n))
    return float(np.sqrt(g / (g - 1) * np.sum(sums**2)) / n)


def choose_dimensions(responses: Any, *, max_dims: int = 10, dims: Iterable[int] | None = None, holdout: float = 0.1,
                      draws: int = 1, seed: int = 0, qmc_points: int = 1024,
                      priors: Mapping[str, tuple] | None = DIMS_PRIORS, TOL: float = 1e-3, NCYCLES: int = 300,
                      progress: Callable[[int, int, int], None] | None = None) -> DimensionsResult:
    """Choose the number of factors of the 2PL by held-out prediction of single answers (the module docstring).

    Parameters
    ----------
    responses : DataFrame or ndarray
        Models x items, 0/1 with NaN (empty) unanswered.
    max_dims : int, default 10
        D = 1..max_dims (ignored when ``dims`` is given).
    dims : iterable of int, optional
        The D compared; 1 is always among them (the rule compares with it).
    holdout : float, default 0.1
        The share of each model's answered cells held out, in (0, 0.5].
    draws : int, default 1
        Independent hold-out draws; the table pools their cells.
    seed : int, default 0
        The hold-out draws (and the QMC points).
    qmc_points : int, default 1024
        Quasi-Monte-Carlo points of the fits with D >= 2.
    priors : mapping or None, default :data:`DIMS_PRIORS`
        mirt's ``(dist, p1, p2)`` per parameter (``a``, ``a1``.., ``d``); None: maximum likelihood.
    TOL : float, default 1e-3
        Convergence: the largest parameter change between EM cycles.
    NCYCLES : int, default 300
        The most EM cycles of one fit.
    progress : callable, optional
        ``progress(done, total, D)`` after each fit, and ``progress(0, total, 0)`` once every argument is
        checked, before the first.

    Returns
    -------
    DimensionsResult
        The table per D and the chosen D.

    Examples
    --------
    >>> rng = np.random.default_rng(3)
    >>> theta = rng.normal(size=(150, 1))
    >>> x = (rng.random((150, 20)) < 1 / (1 + np.exp(-(1.5 * theta - rng.normal(size=20))))).astype(float)
    >>> choose_dimensions(x, dims=[1, 2], qmc_points=256).chosen
    1
    """
    frame = _as_matrix(responses)
    ds = sorted({check_int(d, "dims", low=1) for d in dims}) if dims is not None else \
        list(range(1, check_int(max_dims, "max_dims", low=1, high=50) + 1))
    if not ds:
        raise ValidationError("dims: give at least one number of factors")
    if ds[0] != 1:
        ds = [1] + ds
    holdout = check_number(holdout, "holdout", low=0.0, high=0.5, low_open=True)
    draws = check_int(draws, "draws", low=1)
    seed = int(check_seed(seed, "seed"))  # type: ignore[arg-type]
    qmc_points = check_int(qmc_points, "qmc_points", low=16)
    check_number(TOL, "TOL", low=0.0, low_open=True)
    NCYCLES = check_int(NCYCLES, "NCYCLES", low=1)
    n, j = frame.shape
    if n < 4:
        raise ValidationError(f"responses: {n} model(s); held-out prediction needs at least 4")
    if j <= ds[-1] + 1:
        raise ValidationError(f"dims: D = {ds[-1]} needs more than {ds[-1] + 1} items, the responses have {j}")
    values = frame.to_numpy()
    observed = ~np.isnan(values)
    if observed.sum(axis=1).max(initial=0) < 2:
        raise ValidationError("responses: no model answered two items; nothing to hold out")
    rng = np.random.default_rng(seed)
    per_d: dict[int, list[np.ndarray]] = {d: [] for d in ds}  # per-cell log-likelihoods, draws concatenated
    hits: dict[int, list[np.ndarray]] = {d: [] for d in ds}
    sq: dict[int, list[np.ndarray]] = {d: [] for d in ds}
    train_ll = {d: 0.0 for d in ds}
    conv = {d: True for d in ds}
    secs = {d: 0.0 for d in ds}
    rows_all: list[np.ndarray] = []
    notes: list[str] = []
    total, done = len(ds) * draws, 0
    if progress is not None:  # every check passed: the fits begin
        progress(0, total, 0)
    for draw in range(draws):
        held = holdout_cells(observed, holdout, rng)
        train = np.where(held, np.nan, values)
        keep = ~np.isnan(train).all(axis=0)  # items with no training answer cannot be fitted
        if not keep.all():
            notes.append(f"draw {draw + 1}: {int((~keep).sum())} item(s) with no training answer left out")
            held = held & keep[None, :]
        train_frame = pd.DataFrame(train[:, keep], index=frame.index, columns=frame.columns[keep])
        ri, ci = np.nonzero(held[:, keep])
        y = values[:, keep][ri, ci]
        rows_all.append(ri + draw * n)
        for d in ds:
            fit = _fit(train_frame, d, qmc_points=qmc_points, priors=priors, TOL=TOL, NCYCLES=NCYCLES, seed=seed)
            scores = fit.scores()
            p = fit.probabilities(scores[fit.factor_names].to_numpy())[ri, ci]
            p = np.clip(p, _EPS, 1 - _EPS)
            per_d[d].append(y * np.log(p) + (1 - y) * np.log1p(-p))
            hits[d].append(((p >= 0.5) == (y == 1)).astype(float))
            sq[d].append((p - y) ** 2)
            train_ll[d] += float(fit.loglik)
            conv[d] = conv[d] and bool(fit.converged)
            secs[d] += float(fit.seconds)
            if not fit.converged:
                notes.append(f"D = {d}, draw {draw + 1}: EM not converged after {fit.iterations} cycles")
            done += 1
            if progress is not None:
                progress(done, total, d)
    rows = np.concatenate(rows_all)
    ll = {d: np.concatenate(per_d[d]) for d in ds}
    table = pd.DataFrame({
        "loglik": [ll[d].mean() for d in ds],
        "loglik_se": [_cluster_se(ll[d], rows) for d in ds],
        "gain": [(ll[d] - ll[1]).mean() for d in ds],
        "gain_se": [_cluster_se(ll[d] - ll[1], rows) if d > 1 else 0.0 for d in ds],
        "accuracy": [np.concatenate(hits[d]).mean() for d in ds],
        "accuracy_se": [_cluster_se(np.concatenate(hits[d]), rows) for d in ds],
        "brier": [np.concatenate(sq[d]).mean() for d in ds],
        "train_loglik": [train_ll[d] for d in ds],
        "converged": [conv[d] for d in ds],
        "seconds": [secs[d] for d in ds],
    }, index=pd.Index(ds, name="D"))
    best, chosen = _choose(ds, ll, rows)
    facts = {"n_models": n, "n_items": j, "n_heldout": int(rows.size), "holdout": holdout, "draws": draws,
             "seed": seed, "qmc_points": qmc_points, "chosen": chosen, "best": best, "rule": RULE}
    return DimensionsResult(table=table, chosen=chosen, best=best, facts=facts, notes=tuple(notes))


def _choose(ds: list[int], ll: Mapping[int, np.ndarray], rows: np.ndarray) -> tuple[int, int]:
    """(best D, chosen D) by :data:`RULE`."""
    means = np.array([ll[d].mean() for d in ds])
    best = ds[int(tie_argmax(means))]
    for d in ds:
        near = not tie_greater(ll[best].mean() - ll[d].mean(), _cluster_se(ll[best] - ll[d], rows)) if d != best else True
        above = d == 1 or bool(tie_greater(ll[d].mean() - ll[1].mean(), _cluster_se(ll[d] - ll[1], rows)))
        if near and above:
            return best, d
    return best, 1  # pragma: no cover - D = 1 or the best is always eligible
