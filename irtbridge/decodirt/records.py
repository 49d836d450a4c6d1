"""The structured records of one dataset's evaluation: the per-dataset result, its calibration attempts
and its recorded warnings.

:class:`DatasetResult` is the one per-dataset record: :func:`irtbridge.decodirt.evaluate_dataset` makes
it, :func:`irtbridge.evaluate` adds the report's per-dataset stages to it (``items`` gain columns, ``ei``
is filled), and it travels between processes as plain data. Writers (the report's notes, a batch unit's
``unit.json``) render attempts and warnings with ``str()``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any, Mapping

import pandas as pd

from irtbridge import exceptions
from irtbridge.decodirt.classification_data import dataset_info
from irtbridge._summary import Line, Summary, Warn
from irtbridge.exceptions import IrtBridgeWarning

__all__ = ["CalibrationAttempt", "DatasetResult", "StageWarning"]

# warning category name -> class, to re-raise warnings recorded in another process
_WARNING_CLASSES = {
    name: getattr(exceptions, name) for name in exceptions.__all__
    if isinstance(getattr(exceptions, name), type) and issubclass(getattr(exceptions, name), Warning)
}


@dataclass(frozen=True)
class CalibrationAttempt:
    """One try of one engine: ``status`` is ``"converged"``, ``"not converged"`` or ``"error"``.

    ``str()`` gives the line the report shows, e.g. ``"ltm: error (R's message), 0.3 s"``; :attr:`outcome`
    the same without the time.

    Parameters
    ----------
    engine : str
        The engine tried.
    status : {"converged", "not converged", "error"}
        How it ended.
    message : str, default ""
        R's error message or the convergence note.
    seconds : float, default 0.0
        The time it took.
    model : str, default "3PL"
        The model fitted.
    """

    engine: str
    status: str
    message: str = ""
    seconds: float = 0.0
    model: str = "3PL"

    @property
    def outcome(self) -> str:
        """``"<engine>: <status>"`` with the message in parentheses, without the time.
        """
        return f"{self.engine}: {self.status}" + (f" ({self.message})" if self.message else "")

    def __str__(self) -> str:
        return f"{self.outcome}, {self.seconds:.1f} s"


@dataclass(frozen=True)
class StageWarning:
    """A warning recorded while a dataset was evaluated, kept so that results computed in worker
    processes can re-raise it and reports can show it.

    Attributes
    ----------
    stage : str
        Where it arose: ``"data"``, ``"classifiers"``, ``"calibration"``, ``"scoring"``,
        ``"fit diagnostics"`` (the benchmark's pipeline) or a later stage of :mod:`irtbridge.pipeline`
        (``"ei/hardness"``).
    category : str
        The warning class's name (one of :mod:`irtbridge.exceptions`), e.g. ``"RWarning"``.
    message : str

    Examples
    --------
    >>> str(StageWarning("calibration", "RWarning", "R: NaNs produced"))
    'RWarning: R: NaNs produced'
    """

    stage: str
    category: str
    message: str

    @property
    def warning_class(self) -> type[Warning]:
        """The class to re-raise it with (:class:`~irtbridge.exceptions.IrtBridgeWarning` if unknown)."""
        return _WARNING_CLASSES.get(self.category, IrtBridgeWarning)

    def __str__(self) -> str:
        return f"{self.category}: {self.message}"


@dataclass(frozen=True, eq=False)
class DatasetResult:
    """Everything learned about one dataset: the one per-dataset record of the benchmark and of
    :func:`irtbridge.evaluate`.

    Attributes
    ----------
    name : str
    status : str
        ``"ok"``, or ``"failed"`` when no engine produced item parameters (the dataset is then left out of
        the diagnostics and tournaments, like the paper's "pc4").
    error : str or None
        Why the dataset failed (``None`` when :attr:`ok`).
    responses : pandas.DataFrame
        Respondents x test instances (columns named by the instances' row labels), 1 = correct.
    items : pandas.DataFrame
        Calibrated 3PL parameters ``a, b, g, u`` per item (empty when failed) and ``flag``: why the item's
        estimate is not identified, "" when it is (:func:`~irtbridge.decodirt.modes.flag_items`).
        :func:`irtbridge.evaluate` adds ``label`` (the instance's class), ``share_correct`` (of the real
        classifiers), ``p_typical`` (the 3PL probability that a classifier of median ability answers it
        correctly, Cardoso et al.'s decodIRT Eq. 1) and, for binary datasets, the cost-curve hardness
        ``hardness_sf, hardness_sd, hardness_rd, hardness_su, hardness_ru``; the index is then ``instance``.
    respondents : pandas.DataFrame
        Per respondent: ``kind`` ("classifier" / "artificial"), ``accuracy``, ``theta``, ``se``,
        ``at_bound``, ``true_score``, ``theta_positive``, ``true_score_positive``, ``n_items``,
        ``n_positive`` (see :func:`score_respondents`).
    calibration : Calibration or None
        The fit that produced ``items`` (no R handle), with its provenance.
    calibration_mode : {"stable", "paper"}
        How the 3PL was calibrated (see :mod:`irtbridge.decodirt.modes`).
    engine : str or None
        The engine whose parameters are used.
    engine_requested : str
    attempts : tuple of CalibrationAttempt
    dropped_items : tuple of str
        Constant items (everyone right or everyone wrong) left out of the calibration.
    failed_models : dict
        Classifiers that raised on this dataset, with the error.
    n_instances, n_features, n_classes, n_train, n_test : int
    source : str
    warnings : tuple of StageWarning
        IrtBridge warnings raised while evaluating (R warnings, convergence, dropped items, failed
        classifiers) with the stage that raised them, kept so that results computed in worker
        processes can re-raise them.
    seconds : dict
        Wall time of the stages (``models``, ``calibration``, ``scoring``, ``fit_diagnostics``) and, after
        :func:`irtbridge.evaluate`'s stages, of the whole dataset (``total``).
    classes : tuple of str
        Class labels as strings; a binary pair as ``(negative, positive)``, positive the minority class
        (:func:`~irtbridge.decodirt.class_labels`).
    train_index, test_index : numpy.ndarray of int or None
        The split: positions into the dataset's rows (the test positions are the items, in order).
    y_test : pandas.Series or None
        The test instances' labels (as strings), indexed by item name.
    predictions : pandas.DataFrame or None
        Real classifiers x items: each classifier's predicted label (as a string).
    ei : pandas.DataFrame or None
        Binary datasets after :func:`irtbridge.evaluate`'s stages: the Efficiency Index family of each real
        classifier on the test set.
    scores : pandas.DataFrame or None
        Binary datasets: real classifiers x items, each classifier's score ``P(y = positive)``
        (1/0 for a classifier without probabilities). Later stages (Efficiency Index, instance
        hardness) read these instead of refitting anything.
    """

    name: str
    status: str = "failed"
    responses: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    items: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    respondents: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    calibration: Any = field(default=None, repr=False)
    engine: str | None = None
    engine_requested: str = ""
    attempts: tuple = ()
    dropped_items: tuple = ()
    failed_models: Mapping[str, str] = field(default_factory=dict, repr=False)
    n_instances: int = 0
    n_features: int = 0
    n_classes: int = 0
    n_train: int = 0
    n_test: int = 0
    source: str = "memory"
    warnings: tuple = field(default=(), repr=False)
    seconds: Mapping[str, float] = field(default_factory=dict, repr=False)
    calibration_mode: str = "stable"
    classes: tuple = ()
    train_index: Any = field(default=None, repr=False)
    test_index: Any = field(default=None, repr=False)
    y_test: Any = field(default=None, repr=False)
    predictions: Any = field(default=None, repr=False)
    scores: Any = field(default=None, repr=False)
    error: str | None = None
    ei: pd.DataFrame | None = field(default=None, repr=False)

    @classmethod
    def failure(cls, name: str, error: str, seconds: float = 0.0) -> "DatasetResult":
        """The record of a dataset that could not be evaluated at all (not loaded, a worker lost).

        Parameters
        ----------
        name : str
            The dataset.
        error : str
            Why it failed.
        seconds : float, default 0.0
            The time spent.

        Returns
        -------
        DatasetResult
            Status ``"failed"``.
        """
        return cls(name=name, status="failed", error=error, seconds={"total": float(seconds)})

    @property
    def binary(self) -> bool:
        """Two classes: the Efficiency Index and instance hardness apply."""
        return len(self.classes) == 2

    @property
    def n_flagged(self) -> int:
        """Items whose estimates are not identified (non-empty ``flag`` in :attr:`items`)."""
        if "flag" not in self.items:
            return 0
        return int((self.items["flag"].astype(str) != "").sum())

    @property
    def ok(self) -> bool:
        """Item parameters were estimated and scored (else :attr:`error` says why not)."""
        return self.status == "ok" and self.error is None

    @property
    def converged(self) -> bool:
        """The calibration that produced :attr:`items` converged."""
        return bool(self.calibration is not None and self.calibration.converged)

    @property
    def total_seconds(self) -> float:
        """Wall time of the whole dataset (``seconds["total"]``, else the sum of the stages)."""
        return float(self.seconds.get("total", sum(self.seconds.values())))

    @property
    def provenance(self) -> str:
        """Where the data came from, as the report prints it: the registry's citation of an embedded
        dataset, a CSV's file name, ``"memory"`` for data given as arrays."""
        info = dataset_info(self.name)
        if info is not None and info.source == self.source:
            return info.provenance
        return os.path.basename(str(self.source))

    def summary(self) -> Summary:
        """The dataset, its split, the calibration and the items, from the stored numbers.

        Returns
        -------
        Summary
            The dataset's summary (a failed one: its error).
        """
        if not self.ok:
            return Summary(f"dataset {self.name}: failed", (Line.of("error", Warn(str(self.error))),),
                           data={"name": self.name, "status": self.status, "error": self.error})
        engine = f"{self.engine} ({self.calibration_mode} mode)" if self.engine else self.calibration_mode
        lines = (Line.of("size", f"{self.n_instances} instances, {self.n_features} features, {self.n_classes} classes; "
                                 f"train {self.n_train}, test {self.n_test} (the items)"),
                 Line.of("calibration", f"3PL by {engine}; converged {'yes' if self.converged else 'NO'}; "
                                        f"{self.n_flagged} item(s) flagged"),
                 Line.of("respondents", f"{len(self.respondents)} respondents"))
        return Summary(f"dataset {self.name}", lines, (("respondents", self.respondents),),
                       data={"name": self.name, "status": self.status, "engine": self.engine,
                             "n_test": self.n_test, "n_flagged": self.n_flagged})

    def _repr_html_(self) -> str:
        return self.summary().as_html()
