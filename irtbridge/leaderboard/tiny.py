"""A small benchmark of your own: ``k`` items that predict a new model's accuracy on the whole item set.

``tiny = build_tiny(responses, k, seed=0)`` draws ``k`` items from every item (the sample frame; only items
the caller names in ``exclude`` are left out of it; stratified on the calibration models' share right per item
by default, :mod:`irtbridge.leaderboard.strata`), fits a native 2PL on all models, and freezes
what the default estimator of :mod:`irtbridge.leaderboard.estimators` needs offline: the item parameters and the
calibration models' answers (the features of its ridge regression). ``tiny.predict(answers)`` gives each
new model's predicted share correct on all items with a 95% interval; ``tiny.save(path)`` writes one JSON
file (the *bank*) and :func:`load_tiny` reads it back; :func:`load_bank` reads the same file as an
:class:`~irtbridge.irt.ItemBank` for :func:`~irtbridge.leaderboard.estimate_performance` and
:func:`~irtbridge.leaderboard.adaptive_evaluate`. :func:`~irtbridge.leaderboard.tiny_cv.validate_tiny`
adds the cross-validated error table and the learning curve (how many calibration models are needed).

The idea of a tiny benchmark is tinyBenchmarks (Maia Polo et al. 2024) and metabench (Kipnis et al. 2025);
the default estimator is design-based (prediction-powered, with the ridge features of Zhang, Dorner &
Hardt, NeurIPS 2025), so its interval holds whatever the 2PL's fit.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from irtbridge._constraints import Choice, FsPath, Int, Seed, constraints
from irtbridge._io import atomic_write_text
from irtbridge._summary import Line, Strong, Summary, Warn
from irtbridge._validation import check_int
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard._answers import one_row_per_model, response_values, unique_names
from irtbridge.leaderboard._bank import (BANK_FORMAT, BANK_VERSION, FACTOR_BANK_VERSION, decode, encode, read_bank,
                                         writable_path)
from irtbridge.leaderboard._sample import problem_from_values
from irtbridge.leaderboard.estimators import (DEFAULT_ESTIMATOR, DEFAULT_PRIORS, ESTIMATORS, MAX_FACTORS, STRATIFIED,
                                              IRTParameters, calibrate_2pl, calibrate_factors, estimate_prepared,
                                              get_estimator, runaway_items)
from irtbridge.leaderboard.strata import MIN_PER_STRATUM, N_STRATA, item_strata, stratified_draw

__all__ = ["TinyBenchmark", "build_tiny", "load_tiny", "load_bank", "sample_items", "answers_from_long",
           "BANK_FORMAT", "DESIGNS"]

#: the item draws of :func:`build_tiny`: ``"auto"`` (the default: stratified where the estimator has a stratified
#: form and ``k`` gives every stratum two items, else random), a simple random sample of the frame, or a
#: stratified one (:mod:`irtbridge.leaderboard.strata`: strata on the calibration models' share right per item)
DESIGNS = ("auto", "random", "stratified")


def sample_items(names: Sequence[str], k: int, seed: int = 0, exclude: Sequence[str] | None = None) -> list[str]:
    """``k`` of ``names`` drawn uniformly without replacement, never one in ``exclude``; in ``names``' order.

    Parameters
    ----------
    names : sequence of str
        The items.
    k : int
        How many.
    seed : int, default 0
        Seed of the draw.
    exclude : sequence of str, optional
        Items never drawn.

    Returns
    -------
    list of str
        The drawn items.

    Examples
    --------
    >>> sample_items(["a", "b", "c", "d", "e"], 3, seed=0, exclude=["a"])
    ['c', 'd', 'e']
    """
    names = [str(n) for n in names]
    k, pool = _sampling_pool(names, k, exclude)
    chosen = np.sort(np.random.default_rng(seed).choice(len(pool), k, replace=False))
    return [names[pool[j]] for j in chosen]


def _sampling_pool(names: Sequence[str], k: Any, exclude: Sequence[str] | None) -> tuple[int, list[int]]:
    """``k`` checked and the positions of ``names`` that may be sampled (a one-line error when too few)."""
    k = check_int(k, "k", low=3)
    banned = {str(e) for e in exclude or []}
    pool = [j for j, n in enumerate(names) if n not in banned]
    if k > len(pool):
        raise ValidationError(f"k = {k} items asked of {len(pool)} that may be sampled "
                              f"({len(names)} items, {len(names) - len(pool)} excluded)")
    return k, pool


@dataclass(frozen=True)
class TinyBenchmark:
    """A frozen tiny benchmark (from :func:`build_tiny` or :func:`load_tiny`).

    Attributes
    ----------
    items : list of str
        The ``k`` items a new model answers.
    item_names : tuple of str
        All items; the predicted accuracy is the share correct on all of them.
    exclude : tuple of str
        Items the caller left out of the sample frame (predicted only; the interval spans their whole range).
    method : str
        The estimator (:data:`irtbridge.leaderboard.estimators.DEFAULT_ESTIMATOR` unless chosen).
    calibration : IRTParameters
        The native 2PL on all models of ``responses``, or the native D-factor 2PL (``build_tiny(n_factors=D)``:
        ``calibration.loadings`` and ``calibration.intercepts``).
    seed : int
        The seed of the draw.
    alpha : float, default 10.0
        The ridge penalty of the estimators that use one.
    models : tuple of str
        The calibration models.
    validation : dict
        The cross-validated error table and learning curve (:func:`~irtbridge.leaderboard.tiny_cv.validate_tiny`),
        empty until validated.
    documents : dict
        Item -> ``(task, doc_id)``: the lm-evaluation-harness document of each item where known (what the
        ``--samples`` file names, :mod:`irtbridge.leaderboard.samples_file`); empty when unknown.
    strata : tuple of int or None
        Each item's stratum when the items were drawn stratified (``design="stratified"``); None for a simple
        random draw.
    """

    items: list[str]
    item_names: tuple[str, ...]
    exclude: tuple[str, ...]
    method: str
    calibration: IRTParameters
    models: tuple[str, ...]
    seed: int
    alpha: float = 10.0
    validation: dict = field(default_factory=dict, repr=False)
    documents: dict = field(default_factory=dict, repr=False)
    strata: tuple[int, ...] | None = field(default=None, repr=False)
    _values: np.ndarray | None = field(default=None, repr=False)  # calibration models x items, 0/1/NaN

    @property
    def flagged(self) -> tuple[str, ...]:
        """Items whose 2PL estimates are not identified (:func:`~irtbridge.leaderboard.estimators.runaway_items`):
        in the sample frame like every item; the estimators predict them by the calibration models' mean."""
        return tuple(runaway_items(self.calibration))

    @property
    def k(self) -> int:
        """The number of items of the tiny benchmark."""
        return len(self.items)

    @property
    def n_factors(self) -> int:
        """D, the factors of the calibration (1: the 2PL)."""
        return self.calibration.n_factors

    def predict(self, answers: Any) -> pd.DataFrame:
        """Predicted share correct on all items for each row of ``answers`` (new models x :attr:`items`, 0/1,
        NaN for unanswered): the columns of every estimate (:data:`~irtbridge.leaderboard.estimators.COLUMNS`),
        ``theta``, ``theta_se`` (the 2PL ability and its posterior SD; NaN for an estimator without the 2PL),
        ``accuracy``, ``accuracy_se``, ``lower``, ``upper`` (95% interval), ``predicted_share`` (the share of
        items excluded from the frame), then ``se``, a deprecated alias of ``accuracy_se`` (removed in 0.3.0).
        A D-factor bank (D > 1) leaves ``theta`` and ``theta_se`` NaN and adds ``F1..FD``, ``se_F1..se_FD``
        and ``cov_Fk_Fl``: the posterior (EAP) of the factors given the answers under ``N(0, I)``
        (:func:`~irtbridge.leaderboard.estimators.factor_columns`).

        Parameters
        ----------
        answers : DataFrame or 2-D array
            New models x :attr:`items`.

        Returns
        -------
        DataFrame
            One row per model.

        Examples
        --------
        >>> rng = np.random.default_rng(0)
        >>> theta = rng.normal(size=(40, 1))
        >>> x = (rng.random((40, 60)) < 1 / (1 + np.exp(-(theta - np.linspace(-2, 2, 60))))) * 1.0
        >>> tiny = build_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(60)]), 20)
        >>> out = tiny.predict(pd.DataFrame([np.ones(20)], columns=tiny.items))
        >>> list(out.columns[2:6]), bool(out["lower"].iloc[0] <= out["accuracy"].iloc[0] <= out["upper"].iloc[0])
        (['accuracy', 'accuracy_se', 'lower', 'upper'], True)
        """
        values = self._values
        assert values is not None  # build_tiny and load_tiny give every bank its calibration answers
        prob = problem_from_values(values, self.item_names, self.items, answers, self.exclude, self.strata)
        index = answers.index if isinstance(answers, pd.DataFrame) else pd.RangeIndex(1)
        return estimate_prepared(prob, self.method, self.calibration, index, alpha=self.alpha)

    def bank(self):
        """The 2PL item bank (:class:`~irtbridge.irt.ItemBank`) of all items.

        Returns
        -------
        ItemBank
            ``a`` and ``b`` of every item.
        """
        cal = self.calibration
        if cal.loadings is not None:
            raise ValidationError(f"bank: a {cal.n_factors}-factor tiny benchmark has no 1-D 2PL item bank; "
                                  "adaptive_evaluate and anchors take a 1-D bank (build_tiny(n_factors=1)); estimate_performance "
                                  "takes this TinyBenchmark itself")
        return as_item_bank(pd.DataFrame({"a": cal.a, "b": cal.b}, index=list(cal.names)), "2PL")

    def to_dict(self) -> dict[str, Any]:
        """The bank as the JSON file :meth:`save` writes.

        Returns
        -------
        dict of str to Any
            The format (version 2), the items, the calibration (``a``, ``b``, ``latent_var``, ``priors``,
            ``flagged``) and the calibration models' responses.
        """
        cal, values = self.calibration, self._values
        assert values is not None  # build_tiny and load_tiny give every bank its calibration answers
        priors = None if cal.priors is None else {k: list(v) for k, v in cal.priors.items()}
        factors: dict[str, Any] = {}
        if cal.loadings is not None:  # a D-factor bank: version 3 (an older irtbridge refuses it, not misreads it)
            assert cal.intercepts is not None
            factors = {"n_factors": cal.n_factors, "loadings": [[float(v) for v in row] for row in cal.loadings],
                       "intercepts": [float(v) for v in cal.intercepts]}
        version = BANK_VERSION if not factors else FACTOR_BANK_VERSION
        return {"format": BANK_FORMAT, "version": version, "method": self.method, "seed": self.seed,
                "alpha": self.alpha, "k": self.k, "items": list(self.items), "exclude": list(self.exclude),
                "item_names": list(self.item_names), "a": [float(v) for v in cal.a], "b": [float(v) for v in cal.b],
                "latent_var": cal.variance, "converged": cal.converged, "priors": priors, "flagged": list(self.flagged),
                "models": list(self.models), "responses": [encode(values[:, j]) for j in range(values.shape[1])],
                "validation": self.validation,
                "documents": {item: [str(doc[0]), int(doc[1])] for item, doc in self.documents.items()},
                **({} if self.strata is None else {"strata": list(self.strata)}), **factors}

    def save(self, path: str | os.PathLike) -> str:
        """Write the bank (one JSON file, read back by :func:`load_tiny` and :func:`load_bank`); returns the path.

        Parameters
        ----------
        path : str or os.PathLike
            The file.

        Returns
        -------
        str
            The path written.
        """
        path = writable_path(path)
        atomic_write_text(path, json.dumps(self.to_dict()))
        return path

    def with_validation(self, validation: dict) -> "TinyBenchmark":
        """A copy holding ``validation`` (what :func:`validate_tiny` measured).

        Parameters
        ----------
        validation : dict
            ``errors`` and ``learning_curve``.

        Returns
        -------
        TinyBenchmark
            The copy.
        """
        return replace(self, validation=dict(validation))

    def summary(self) -> Summary:
        """The items, the estimator and, once validated, the held-out error and the learning curve.

        Returns
        -------
        Summary
            The benchmark's summary.
        """
        lines = [Line.of("items", Strong(f"{self.k} items"), f" drawn from {len(self.item_names) - len(self.exclude)} "
                         f"of {len(self.item_names)} ({len(self.exclude)} excluded by you, predicted only), "
                         f"calibrated on {len(self.models)} models; {len(self.flagged)} item(s) with unidentified "
                         "2PL estimates, in the frame, predicted by the calibration models' mean"),
                 Line.of("calibration", f"{self._engine()}, {_describe_priors(self.calibration.priors)}"),
                 Line.of("method", f"estimator {self.method!r}; 95% interval from its design-based variance")]
        if not self.calibration.converged:
            lines.append(Line.of("converged", Warn(f"the {self._engine()} did not converge"), " (items answered alike by "
                                 "every model have no finite maximum); the estimate stays design-based"))
        tables = []
        for key, caption in (("errors", "cross-validated error over held-out models"),
                             ("learning_curve", "error against the number of calibration models")):
            rows = self.validation.get(key)
            if rows:
                tables.append((caption, pd.DataFrame(rows)))
        return Summary("tiny benchmark", tuple(lines), tuple(tables), tuple(self.notes), data=self.summary_dict())

    def _engine(self) -> str:
        """``native 2PL`` or ``native D-factor 2PL (exploratory, EAP scores)``."""
        if self.n_factors == 1:
            return "native 2PL"
        return f"native {self.n_factors}-factor 2PL (exploratory; a new model's factors by EAP under N(0, I))"

    @property
    def notes(self) -> list[str]:
        """What a reader of the numbers must know: a coverage below 0.90 in the error table, no validation,
        items excluded from the sample frame.

        Returns
        -------
        list of str
            The notes of :meth:`summary` and of ``summary.json``.
        """
        notes = [str(n) for n in self.validation.get("notes", [])]
        if not self.validation:
            notes.append("not validated: run irtbridge.leaderboard.tiny_cv.validate_tiny")
        if self.exclude:
            notes.append(f"{len(self.exclude)} of {len(self.item_names)} items are excluded from the sample frame: "
                         "their share of the accuracy is predicted only, and the interval spans its whole range")
        return notes

    def summary_dict(self) -> dict[str, Any]:
        """The summary's data (the CLI's ``--json``).

        Returns
        -------
        dict of str to Any
            ``k``, ``n_items``, ``n_models``, ``method``, ``seed``, ``excluded``, ``flagged``, ``priors``,
            ``converged``, ``notes``, ``errors`` and
            ``learning_curve``; ``n_factors`` for a D-factor bank (D > 1).
        """
        priors = self.calibration.priors
        return {"k": self.k, "n_items": len(self.item_names), "n_models": len(self.models), "method": self.method,
                "seed": self.seed, "excluded": len(self.exclude), "flagged": len(self.flagged),
                "priors": None if priors is None else {k: list(v) for k, v in priors.items()},
                "converged": self.calibration.converged, "notes": self.notes,
                **{key: self.validation.get(key, []) for key in ("errors", "learning_curve")},
                **({} if self.n_factors == 1 else {"n_factors": self.n_factors})}

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def _describe_priors(priors: Mapping[str, tuple] | None) -> str:
    """``item prior a1 ~ norm(1, 2)``, or plain maximum likelihood."""
    if not priors:
        return "plain maximum likelihood (no item prior)"
    return "item prior " + "; ".join(f"{k} ~ {v[0]}({', '.join(f'{x:g}' for x in v[1:3])})" for k, v in priors.items())


@constraints(k=Int(low=3), seed=Seed(), method=Choice(ESTIMATORS), NCYCLES=Int(low=1), design=Choice(DESIGNS),
             n_factors=Int(low=1, high=MAX_FACTORS))
def build_tiny(responses: pd.DataFrame, k: int, seed: int = 0, *, exclude: Sequence[str] | None = None,
               method: str = DEFAULT_ESTIMATOR, calibration: IRTParameters | None = None,
               priors: Mapping[str, tuple] | None = DEFAULT_PRIORS, NCYCLES: int = 500,
               design: str = "auto", n_factors: int = 1) -> TinyBenchmark:
    """Draw ``k`` items of ``responses`` and freeze what predicts a new model's accuracy from them.

    Parameters
    ----------
    responses : DataFrame
        Models x items, 0/1, NaN for unanswered. A model named twice with the same answers counts once; with
        different answers it is an error (the rule of every command, :func:`one_row_per_model`).
    k : int
        Items a new model answers (3 to the number of items that may be sampled).
    seed : int
        Seeds the draw.
    exclude : sequence of str, optional
        Items left out of the sample frame (none by default). They still count in the predicted accuracy,
        predicted only, and the estimate's interval spans their whole range (``predicted_share`` says how
        much of the accuracy they are). Items the 2PL flags as not identified (runaway slopes or
        difficulties, :func:`~irtbridge.leaderboard.estimators.runaway_items`) stay in the frame and may be
        drawn, so the estimate stays design-based; only their IRT feature is replaced by the calibration
        models' mean on the item. An item no calibration model answered may be drawn as well: its features
        are the calibration's overall share right (it predicts nothing, and the design-based estimate does
        not need it to).
    method : str
        Estimator of :func:`irtbridge.leaderboard.estimate_accuracy` (default: the measured best).
    calibration : IRTParameters, optional
        A 2PL fit of ``responses`` (:func:`~irtbridge.leaderboard.estimators.calibrate_2pl`); fitted if not given.
    priors : mapping or None, default :data:`~irtbridge.leaderboard.estimators.DEFAULT_PRIORS`
        Item priors of that fit, the same default as ``irtbridge leaderboard`` (``a1 ~ N(1, 2)``); None:
        plain maximum likelihood. The bank stores them.
    NCYCLES : int
        EM cycles of that fit (mirt's default 500).
    design : {"auto", "random", "stratified"}, default "auto"
        The item draw: a simple random sample of the frame (``"random"``), or a stratified one
        (``"stratified"``, :mod:`irtbridge.leaderboard.strata`: :data:`~irtbridge.leaderboard.strata.N_STRATA`
        strata on the calibration models' share right per item, flagged and unanswered items a stratum each,
        proportional allocation, at least two items each); the bank keeps the strata and ``predict`` uses the
        stratified estimator ("ppi" and "mean" only). ``"auto"`` is the stratified draw where ``method`` has
        a stratified form and ``k`` gives every stratum two items, the random one otherwise: on 21 real
        leaderboards (``speed/lm_estimators.py``, 5 seeds) it kept every set's coverage at 0.89 or more where
        the random draw let two fall to 0.83.
    n_factors : int, default 1
        D, the factors of the calibration (1 to :data:`~irtbridge.leaderboard.estimators.MAX_FACTORS`). 1:
        the native 2PL, exactly as before. Above 1: the native exploratory D-factor 2PL
        (:func:`~irtbridge.leaderboard.estimators.calibrate_factors`; the default priors become ``a1 ~ N(1, 2)``
        and ``N(0, 2)`` on the other slopes), and the IRT feature of a new model is the posterior mean of
        ``P_j(F)`` given its answers under ``F ~ N(0, I)`` (EAP; ``predict`` reports ``F1..FD`` with their
        posterior SDs and covariances). The bank stores the loadings and intercepts (bank version 3).

    Returns
    -------
    TinyBenchmark

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((30, 50)) < 0.6) * 1.0
    >>> tiny = build_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(50)]), 10, exclude=["q0"])
    >>> tiny.k, "q0" in tiny.items, tiny.exclude
    (10, False, ('q0',))
    """
    method = get_estimator(method).name
    auto = design == "auto"
    if auto:
        design = "stratified" if method in STRATIFIED else "random"
    if design == "stratified" and method not in STRATIFIED:
        raise ValidationError(f"design: a stratified draw needs method {' or '.join(STRATIFIED)}, not {method!r}")
    response_values(responses, "responses")  # a DataFrame of 0/1/NaN (one-line errors) before the rule below
    responses = one_row_per_model(responses, "responses")  # the commands' rule: identical repeats count once
    values = response_values(responses, "responses")
    names = tuple(str(c) for c in responses.columns)
    unique_names(names, "item", "responses")
    if values.shape[0] < 3:
        raise ValidationError(f"responses has {values.shape[0]} model(s); a tiny benchmark needs at least 3")
    unknown = [e for e in (exclude or []) if str(e) not in set(names)]
    if unknown:
        raise ValidationError(f"exclude names {len(unknown)} item(s) not in responses, e.g. {unknown[:3]}")
    _sampling_pool(names, k, exclude)  # k and the caller's exclusions checked before the fit (bad input: no work)
    if calibration is not None and calibration.n_factors != n_factors:
        raise ValidationError(f"calibration has {calibration.n_factors} factor(s), n_factors is {n_factors}")
    if n_factors >= len(names):
        raise ValidationError(f"n_factors: {n_factors} factors need more than {n_factors} items, responses has "
                              f"{len(names)}")
    if calibration is not None:
        cal = calibration
    elif n_factors == 1:  # the 2PL, as ever
        cal = calibrate_2pl(responses, priors=priors, NCYCLES=NCYCLES)
    else:
        cal = calibrate_factors(responses, n_factors, priors=priors, NCYCLES=NCYCLES)
    if tuple(cal.names) != names:
        raise ValidationError("calibration's items are not responses' items (same names, same order)")
    # the sample frame is every item but the caller's exclusions: items whose 2PL estimates run away (issue 39)
    # are drawn like any other, or the estimate would rest on their prediction alone
    given = {str(e) for e in exclude or []}
    exclude = [n for n in names if n in given]
    strata = None
    labels = item_strata(responses, N_STRATA, calibration=cal) if design == "stratified" else None
    frame = np.array([n not in given for n in names])
    if auto and labels is not None and k < np.minimum(MIN_PER_STRATUM, np.bincount(labels[frame])).sum():
        labels = None  # too few items for two in every stratum: the simple random draw
    if labels is not None:
        pos = stratified_draw(labels, k, np.random.default_rng(seed), frame)
        items = [names[j] for j in pos]
        strata = tuple(int(v) for v in labels)
    else:
        items = sample_items(names, k, seed, exclude)
    return TinyBenchmark(items=items, item_names=names, exclude=tuple(exclude), method=method,
                         calibration=cal, models=tuple(str(i) for i in responses.index), seed=int(seed),
                         strata=strata, _values=values)


#: a bank file, or a folder holding its bank.json (irtbridge.leaderboard._bank.bank_path)
_BANK = FsPath(must_exist=True, what="a bank file")


@constraints(path=_BANK)
def load_tiny(path: str | os.PathLike) -> TinyBenchmark:
    """Read a bank written by :meth:`TinyBenchmark.save` (a file, or a folder holding ``bank.json``).

    Parameters
    ----------
    path : str or os.PathLike
        The file or folder.

    Returns
    -------
    TinyBenchmark
        The bank.
    """
    data = read_bank(path)
    names = tuple(str(n) for n in data["item_names"])
    priors = data.get("priors")
    loadings = data.get("loadings")
    cal = IRTParameters(names, np.asarray(data["a"], dtype=float), np.asarray(data["b"], dtype=float),
                        float(data.get("latent_var", 1.0)), bool(data.get("converged", True)),
                        None if priors is None else {k: tuple(v) for k, v in priors.items()},
                        loadings=None if loadings is None else np.asarray(loadings, dtype=float).reshape(len(names), -1),
                        intercepts=None if loadings is None else np.asarray(data["intercepts"], dtype=float))
    where = f"bank file {os.fspath(path)!r}"
    if "flagged" in data and set(data["flagged"]) != set(runaway_items(cal)):
        raise ValidationError(f"{where}: flagged does not list the items its a and b flag; rebuild the bank")
    values = np.column_stack([decode(r) for r in data["responses"]]) if names else np.empty((0, 0))
    method = str(data["method"])
    if method not in ESTIMATORS:
        raise ValidationError(f"{where}: unknown method {method!r}")
    return TinyBenchmark(items=[str(i) for i in data["items"]], item_names=names,
                         exclude=tuple(str(e) for e in data.get("exclude", [])), method=method, calibration=cal,
                         models=tuple(str(m) for m in data["models"]), seed=int(data.get("seed", 0)),
                         alpha=float(data.get("alpha", 10.0)), validation=dict(data.get("validation") or {}),
                         documents={str(k): (str(v[0]), int(v[1])) for k, v in (data.get("documents") or {}).items()},
                         strata=_strata(data, names, method, where), _values=values)


def _strata(data: dict, names: tuple[str, ...], method: str, where: str) -> tuple[int, ...] | None:
    """A bank's ``strata`` (absent or null: a simple random draw, as every bank before them), checked."""
    strata = data.get("strata")
    if strata is None:
        return None
    if not isinstance(strata, list) or len(strata) != len(names) or not all(
            isinstance(v, int) and not isinstance(v, bool) for v in strata):
        raise ValidationError(f"{where}: strata must hold one whole-number label per item ({len(names)})")
    if method not in STRATIFIED:
        raise ValidationError(f"{where}: strata given with method {method!r}; only {', '.join(STRATIFIED)} use them")
    return tuple(strata)


@constraints(path=_BANK)
def load_bank(path: str | os.PathLike):
    """The 2PL :class:`~irtbridge.irt.ItemBank` of a bank file, for ``estimate_performance`` / ``adaptive_evaluate``.

    Parameters
    ----------
    path : str or os.PathLike
        The file or folder.

    Returns
    -------
    ItemBank
        The 2PL items of the bank.

    Examples
    --------
    >>> import tempfile
    >>> rng = np.random.default_rng(0)
    >>> tiny = build_tiny(pd.DataFrame((rng.random((30, 40)) < 0.6) * 1.0, columns=[f"q{j}" for j in range(40)]), 5)
    >>> with tempfile.TemporaryDirectory() as d:
    ...     load_bank(tiny.save(os.path.join(d, "bank.json"))).n_items
    40
    """
    tiny = load_tiny(path)
    if tiny.n_factors > 1:
        raise ValidationError(f"bank file {os.fspath(path)!r} holds a {tiny.n_factors}-factor calibration; "
                              "adaptive_evaluate and anchors take a 1-D bank (irtbridge tiny --factors 1); estimate_performance "
                              "takes the bank file itself")
    return tiny.bank()


def answers_from_long(long_table: pd.DataFrame, items: Sequence[str]) -> pd.DataFrame:
    """New models x ``items`` from a long table whose first columns are ``model, task, item, score``.

    HOOK(read_lm_eval): ``irtbridge.leaderboard.read_lm_eval(paths)`` (another branch) returns exactly such a
    table; ``tiny.predict(answers_from_long(read_lm_eval(paths), tiny.items))`` scores a model straight from
    its harness output. Item ids must match the bank's item names.

    Parameters
    ----------
    long_table : DataFrame
        See above.
    items : sequence of str
        The items wanted, in order.

    Returns
    -------
    DataFrame
        Models x ``items``, float 1/0/NaN.
    """
    need = ["model", "item", "score"]
    missing = [c for c in need if c not in long_table.columns]
    if missing:
        raise ValidationError(f"long table lacks column(s) {', '.join(missing)}")
    frame = long_table.assign(item=long_table["item"].astype(str))
    wide = frame.pivot_table(index="model", columns="item", values="score", aggfunc="last")
    absent = [i for i in items if i not in wide.columns]
    if absent:
        raise ValidationError(f"the long table has no answers to {len(absent)} tiny item(s), e.g. {absent[:3]}")
    return wide[list(items)].astype(float)
