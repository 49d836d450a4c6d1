"""A small benchmark of your own: ``k`` items that predict a new model's accuracy on the whole item set.

``tiny = build_tiny(responses, k, seed=0)`` draws ``k`` items at random (never one named in ``exclude``,
e.g. the runaway items of a native calibration), fits a native 2PL on all models, and freezes what the
default estimator of :mod:`irtbridge.leaderboard.estimators` needs offline: the item parameters and the
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
from typing import Any, Sequence

import numpy as np
import pandas as pd

from irtbridge._summary import Line, Strong, Summary, Warn
from irtbridge._validation import check_int
from irtbridge.exceptions import ValidationError
from irtbridge.leaderboard._answers import response_values
from irtbridge.leaderboard._predictors import item_features
from irtbridge.leaderboard.estimators import (DEFAULT_ESTIMATOR, ESTIMATORS, IRTParameters, calibrate_2pl, estimate_prepared,
                                              problem_from_features)

__all__ = ["TinyBenchmark", "build_tiny", "load_tiny", "load_bank", "sample_items", "answers_from_long",
           "BANK_FORMAT"]

BANK_FORMAT = "irtbridge-tiny-bank"
_VERSION = 1


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


def _encode(column: np.ndarray) -> str:
    return "".join("." if np.isnan(v) else ("1" if v == 1 else "0") for v in column)


def _decode(text: str) -> np.ndarray:
    return np.array([np.nan if c == "." else float(c) for c in text])


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
        Items never sampled (predicted only).
    method : str
        The estimator (:data:`irtbridge.leaderboard.estimators.DEFAULT_ESTIMATOR` unless chosen).
    calibration : IRTParameters
        The native 2PL on all models of ``responses``.
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
    _values: np.ndarray | None = field(default=None, repr=False)  # calibration models x items, 0/1/NaN

    @property
    def k(self) -> int:
        """The number of items of the tiny benchmark."""
        return len(self.items)

    def predict(self, answers: Any) -> pd.DataFrame:
        """Predicted share correct on all items (``accuracy``, ``lower``, ``upper``: 95% interval, ``se``,
        and the 2PL ability ``theta`` with its posterior SD ``theta_se``) for each row of ``answers``
        (new models x :attr:`items`, 0/1, NaN for unanswered).

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
        >>> list(out.columns[:3]), bool(out["lower"].iloc[0] <= out["accuracy"].iloc[0] <= out["upper"].iloc[0])
        (['accuracy', 'lower', 'upper'], True)
        """
        values = self._values
        assert values is not None  # build_tiny and load_tiny give every bank its calibration answers
        prob = problem_from_features(item_features(values), self.item_names, self.items, answers, self.exclude)
        index = answers.index if isinstance(answers, pd.DataFrame) else pd.RangeIndex(1)
        out = estimate_prepared(prob, self.method, self.calibration, index, alpha=self.alpha)
        return out[["accuracy", "lower", "upper", "se"] + [c for c in ("theta", "theta_se") if c in out]]

    def bank(self):
        """The 2PL item bank (:class:`~irtbridge.irt.ItemBank`) of all items.

        Returns
        -------
        ItemBank
            ``a`` and ``b`` of every item.
        """
        from irtbridge.irt import as_item_bank

        cal = self.calibration
        return as_item_bank(pd.DataFrame({"a": cal.a, "b": cal.b}, index=list(cal.names)), "2PL")

    def to_dict(self) -> dict[str, Any]:
        """The bank as the JSON file :meth:`save` writes.

        Returns
        -------
        dict of str to Any
            The format, the items, the calibration and the calibration models' responses.
        """
        cal, values = self.calibration, self._values
        assert values is not None  # build_tiny and load_tiny give every bank its calibration answers
        return {"format": BANK_FORMAT, "version": _VERSION, "method": self.method, "seed": self.seed,
                "alpha": self.alpha, "k": self.k, "items": list(self.items), "exclude": list(self.exclude),
                "item_names": list(self.item_names), "a": [float(v) for v in cal.a], "b": [float(v) for v in cal.b],
                "latent_var": cal.variance, "converged": cal.converged, "models": list(self.models),
                "responses": [_encode(values[:, j]) for j in range(values.shape[1])],
                "validation": self.validation,
                "documents": {item: [str(doc[0]), int(doc[1])] for item, doc in self.documents.items()}}

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
        path = os.fspath(path)
        tmp = f"{path}.partial-{os.getpid()}"
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(self.to_dict(), fh)
        os.replace(tmp, path)
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
        lines = [Line.of("items", Strong(f"{self.k} items"), f" of {len(self.item_names)} "
                         f"({len(self.exclude)} excluded from sampling), calibrated on {len(self.models)} models"),
                 Line.of("method", f"estimator {self.method!r}; 95% interval from its design-based variance")]
        if not self.calibration.converged:
            lines.append(Line.of("converged", Warn("the native 2PL did not converge"), " (items answered alike by "
                                 "every model have no finite maximum); the estimate stays design-based"))
        tables = []
        for key, caption in (("errors", "cross-validated error over held-out models"),
                             ("learning_curve", "error against the number of calibration models")):
            rows = self.validation.get(key)
            if rows:
                tables.append((caption, pd.DataFrame(rows)))
        notes = () if self.validation else ("not validated: run irtbridge.leaderboard.tiny_cv.validate_tiny",)
        return Summary("tiny benchmark", tuple(lines), tuple(tables), notes, data=self.summary_dict())

    def summary_dict(self) -> dict[str, Any]:
        """The summary's data (the CLI's ``--json``).

        Returns
        -------
        dict of str to Any
            ``k``, ``n_items``, ``n_models``, ``method``, ``seed``, ``excluded``, ``converged``, ``errors`` and
            ``learning_curve``.
        """
        return {"k": self.k, "n_items": len(self.item_names), "n_models": len(self.models), "method": self.method,
                "seed": self.seed, "excluded": len(self.exclude), "converged": self.calibration.converged,
                **{key: self.validation.get(key, []) for key in ("errors", "learning_curve")}}

    def _repr_html_(self) -> str:
        return self.summary().as_html()


def runaway_items(calibration: Any) -> list[str]:
    """The items of a 2PL calibration that the engine flags (:func:`irtbridge.calibration.results.flags.flag_items`:
    ``|a| > 10``, ``|b| > 6`` or not finite), in item order: never sampled into a tiny benchmark."""
    from irtbridge.calibration.results.flags import flag_items

    table = pd.DataFrame({"a": np.asarray(calibration.a, dtype=float), "b": np.asarray(calibration.b, dtype=float)},
                         index=[str(n) for n in calibration.names])
    flags = flag_items(table)
    return [str(n) for n in flags.index[flags.to_numpy() != ""]]


def build_tiny(responses: pd.DataFrame, k: int, seed: int = 0, *, exclude: Sequence[str] | None = None,
               method: str = DEFAULT_ESTIMATOR, calibration: IRTParameters | None = None,
               NCYCLES: int = 500) -> TinyBenchmark:
    """Draw ``k`` items of ``responses`` and freeze what predicts a new model's accuracy from them.

    Parameters
    ----------
    responses : DataFrame
        Models x items, 0/1, NaN for unanswered.
    k : int
        Items a new model answers (3 to the number of items that may be sampled).
    seed : int
        Seeds the draw.
    exclude : sequence of str, optional
        Items never sampled, besides those the 2PL calibration flags as not identified (runaway slopes or
        difficulties, :func:`runaway_items`, always left out, issue 34); they still count in
        the predicted accuracy, predicted only.
    method : str
        Estimator of :func:`irtbridge.leaderboard.estimate_accuracy` (default: the measured best).
    calibration : IRTParameters, optional
        A 2PL fit of ``responses`` (:func:`~irtbridge.leaderboard.estimators.calibrate_2pl`); fitted if not given.
    NCYCLES : int
        EM cycles of that fit (mirt's default 500).

    Returns
    -------
    TinyBenchmark

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((30, 50)) < 0.6) * 1.0
    >>> tiny = build_tiny(pd.DataFrame(x, columns=[f"q{j}" for j in range(50)]), 10, exclude=["q0"])
    >>> tiny.k, "q0" in tiny.items
    (10, False)
    """
    if method not in ESTIMATORS:
        raise ValidationError(f"method must be one of {', '.join(ESTIMATORS)}, got {method!r}")
    values = response_values(responses, "responses")
    names = tuple(str(c) for c in responses.columns)
    if len(set(names)) != len(names):
        raise ValidationError("responses repeat an item name")
    if values.shape[0] < 3:
        raise ValidationError(f"responses has {values.shape[0]} model(s); a tiny benchmark needs at least 3")
    unknown = [e for e in (exclude or []) if str(e) not in set(names)]
    if unknown:
        raise ValidationError(f"exclude names {len(unknown)} item(s) not in responses, e.g. {unknown[:3]}")
    _sampling_pool(names, k, exclude)  # k and the caller's exclusions checked before the fit (bad input: no work)
    cal = calibration if calibration is not None else calibrate_2pl(responses, NCYCLES=NCYCLES)
    if tuple(cal.names) != names:
        raise ValidationError("calibration's items are not responses' items (same names, same order)")
    # items whose 2PL estimates the data do not identify (the engine's flags, irtbridge.calibration.results.flags) are
    # never sampled: they count in the estimate through its prediction alone, as `exclude` says
    flagged = set(runaway_items(cal))
    given = {str(e) for e in exclude or []}
    exclude = [n for n in names if n in given or n in flagged]
    items = sample_items(names, k, seed, exclude)
    return TinyBenchmark(items=items, item_names=names, exclude=tuple(exclude), method=method,
                         calibration=cal, models=tuple(str(i) for i in responses.index), seed=int(seed),
                         _values=values)


def _read_bank(path: str | os.PathLike) -> dict[str, Any]:
    path = os.fspath(path)
    if os.path.isdir(path):
        path = os.path.join(path, "bank.json")
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except FileNotFoundError:
        raise ValidationError(f"bank file {path!r} does not exist") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValidationError(f"bank file {path!r} is not JSON: {exc}") from None
    if not isinstance(data, dict) or data.get("format") != BANK_FORMAT:
        raise ValidationError(f"bank file {path!r} is not an irtbridge tiny bank (format {BANK_FORMAT!r})")
    needed = ["items", "item_names", "a", "b", "responses", "models", "method"]
    missing = [key for key in needed if key not in data]
    if missing:
        raise ValidationError(f"bank file {path!r} lacks {', '.join(missing)}")
    n = len(data["item_names"])
    if len(data["a"]) != n or len(data["b"]) != n or len(data["responses"]) != n:
        raise ValidationError(f"bank file {path!r}: a, b and responses must have one entry per item ({n})")
    if any(len(r) != len(data["models"]) for r in data["responses"]):
        raise ValidationError(f"bank file {path!r}: each item's responses must have one character per model")
    return data


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
    data = _read_bank(path)
    names = tuple(str(n) for n in data["item_names"])
    cal = IRTParameters(names, np.asarray(data["a"], dtype=float), np.asarray(data["b"], dtype=float),
                        float(data.get("latent_var", 1.0)), bool(data.get("converged", True)))
    values = np.column_stack([_decode(r) for r in data["responses"]]) if names else np.empty((0, 0))
    method = str(data["method"])
    if method not in ESTIMATORS:
        raise ValidationError(f"bank file {os.fspath(path)!r}: unknown method {method!r}")
    return TinyBenchmark(items=[str(i) for i in data["items"]], item_names=names,
                         exclude=tuple(str(e) for e in data.get("exclude", [])), method=method, calibration=cal,
                         models=tuple(str(m) for m in data["models"]), seed=int(data.get("seed", 0)),
                         alpha=float(data.get("alpha", 10.0)), validation=dict(data.get("validation") or {}),
                         documents={str(k): (str(v[0]), int(v[1])) for k, v in (data.get("documents") or {}).items()},
                         _values=values)


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
    return load_tiny(path).bank()


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
