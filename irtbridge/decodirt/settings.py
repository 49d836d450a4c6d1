"""The options of one evaluation, checked once (:class:`Settings`): the one object that carries them from the
entry (``irtbridge evaluate``, ``irtbridge benchmark``, :func:`irtbridge.evaluate`,
:func:`irtbridge.pipeline.run_benchmark`, a batch unit) down to the last per-dataset stage
(:func:`irtbridge.decodirt.evaluate_dataset`), under one name per option.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from irtbridge._validation import R_SEED_MAX, check_choice, check_int, check_number, check_seed
from irtbridge.decodirt.classification_data import QUICK_MAX_ITEMS
from irtbridge.decodirt.modes import CalibrationMode
from irtbridge.decodirt.respondents import classifier_pool
from irtbridge.decodirt.tournaments import ORDERS
from irtbridge.exceptions import ValidationError

__all__ = ["OLD_KEYWORDS", "Settings", "given_settings"]

#: irtbridge 0.1's keyword arguments of a dataset's options (``evaluate_dataset``, ``run_benchmark``), by the
#: Settings field that carries each now (served with a warning by :func:`irtbridge._moved.moved_keywords`)
OLD_KEYWORDS = {
    **{k: f"Settings.{k}" for k in (
        "pool", "calibration", "engine", "fallback", "engine_options", "accept_unconverged", "max_train", "n_random",
        "artificial", "ability_method", "target")},
    "test_size": "Settings.test_fraction", "max_test": "Settings.max_items", "random_state": "Settings.seed",
}


@dataclass(frozen=True)
class Settings:
    """Options of one evaluation (Cardoso et al.'s (decodIRT) settings unless stated).

    The one carrier of the options: made where a run enters (the CLI's flags and the API's keywords have
    these names), checked at construction (a one-line ValidationError before any work, its calibration
    ``mode`` resolved there and only there), then passed as it is, pickled to the workers, down to the
    last per-dataset stage (:func:`irtbridge.decodirt.evaluate_dataset`).

    Attributes
    ----------
    seed : int
        Seeds every random choice (split, classifiers, random respondents, MLC); the same seed gives
        the same report whatever ``jobs`` is.
    calibration : {"stable", "paper"}
        ``"stable"`` (default): mirt's 3PL with weakly informative priors; ``"paper"``: ltm's 3PL as
        Cardoso et al. (decodIRT) (:mod:`irtbridge.decodirt.modes`, ``docs/calibration-modes.md``).
    engine : {"mirt", "native", "ltm"} or None
        3PL calibration engine tried first; None: the mode's (mirt for stable, ltm's ``tpm`` for paper).
        After construction it holds the engine that will run.
    fallback : bool or None
        Retry a dataset with the mode's other engine when the first errs or does not converge; None: the
        mode's default (paper: yes; stable has no fallback). After construction: whether there is one.
    mode : CalibrationMode
        Resolved from ``calibration``, ``engine`` and ``fallback`` once, at construction (an invalid
        combination is a one-line ValidationError there, before any work); everything below reads it.
    engine_options : mapping, optional
        Extra options per engine (``{"mirt": {"technical": {"NCYCLES": 2000}}}``), part of ``mode``.
    pool : str, list or mapping
        Classifier pool of :func:`irtbridge.decodirt.classifier_pool`: ``"default"`` (the paper's 12
        and variants, 43 respondents with the artificial ones) or ``"quick"``/``"paper"``, or members.
    test_fraction : float
        Share of each dataset held out as items (0.3).
    max_items : int or None
        Cap on the test set (500, the paper's; 60 in quick runs; None: no cap).
    max_train : int or None
        Cap on the training set (None: all the rest).
    n_random, artificial : int, bool
        Random guessers among the artificial respondents; whether to add those respondents at all.
    accept_unconverged : bool
        Keep an unconverged fit when no engine converges (otherwise the dataset is left out).
    target : str or None
        Target column of CSV datasets given without ``:TARGET`` (default ``"target"``).
    ability_method : {"ML", "MAP", "EAP"}
        Ability estimator before the True-Scores (ML, as the paper's catsim).
    order : str
        Dataset order of the main tournament (:data:`irtbridge.decodirt.ORDERS`; default by
        increasing mean difficulty).
    tolerance : float
        True-Scores closer than this draw.
    tau : float
        Glicko-2 system constant.
    mlc_dataset : str or None
        Dataset of the per-class MLC (default: the first binary dataset).
    mlc_classifier : str
        Classifier of the MLC (a name of :data:`irtbridge.mlc.CLASSIFIERS`).
    quick : bool
        Set by :meth:`quick_run`.

    Examples
    --------
    >>> s = Settings(calibration="paper", max_items=100, seed=7)
    >>> s.mode.engines, s.max_items, s.seed
    (('ltm', 'mirt'), 100, 7)
    >>> Settings(test_fraction=1.5)
    Traceback (most recent call last):
    ...
    irtbridge.exceptions.ValidationError: test_fraction must be ...
    """

    seed: int = 0
    calibration: str = "stable"
    engine: str | None = None
    fallback: bool | None = None
    pool: str | Sequence[str] | Mapping[str, Any] = "default"
    test_fraction: float = 0.3
    max_items: int = 500
    ability_method: str = "ML"
    order: str = "difficulty"
    tolerance: float = 1e-6
    tau: float = 0.5
    mlc_dataset: str | None = None
    mlc_classifier: str = "mlp"
    quick: bool = False
    engine_options: Mapping[str, Mapping[str, Any]] | None = None
    max_train: int | None = None
    n_random: int = 3
    artificial: bool = True
    accept_unconverged: bool = False
    target: str | None = None
    mode: CalibrationMode = field(init=False, repr=False, compare=False)

    @classmethod
    def quick_run(cls, **overrides: Any) -> "Settings":
        """Settings of ``--quick``: the fast 12-model pool and at most 60 test instances per dataset.

        Parameters
        ----------
        **overrides
            Fields set as well (they win over the quick run's).

        Returns
        -------
        Settings
            ``quick=True``.
        """
        options: dict[str, Any] = {"quick": True, "max_items": QUICK_MAX_ITEMS, "pool": "quick", **overrides}
        return cls(**options)

    def __post_init__(self) -> None:
        check_seed(self.seed, "seed", high=R_SEED_MAX)
        mode = CalibrationMode.resolve(self.calibration, self.engine, self.fallback, self.engine_options)
        object.__setattr__(self, "mode", mode)
        object.__setattr__(self, "calibration", mode.name)
        object.__setattr__(self, "engine", mode.engine)
        object.__setattr__(self, "fallback", bool(mode.fallback))
        object.__setattr__(self, "engine_options", {e: dict(o) for e, o in mode.engine_options.items()} or None)
        if isinstance(self.pool, str):
            check_choice(self.pool, "pool", ("default", "paper", "quick"))
        else:  # a list of members or a mapping name -> estimator: checked here, not in every worker

            classifier_pool(self.pool)
        check_number(self.test_fraction, "test_fraction", low=0.0, high=1.0, low_open=True, high_open=True)
        for value, label in ((self.max_items, "max_items"), (self.max_train, "max_train")):
            if value is not None:
                check_int(value, label, low=10 if label == "max_items" else 2)
        check_int(self.n_random, "n_random", low=0)
        object.__setattr__(self, "ability_method",
                           check_choice(self.ability_method, "ability_method", ("ML", "MAP", "EAP"), ignore_case=True))
        check_choice(self.order, "order", ORDERS)
        check_number(self.tolerance, "tolerance", low=0.0)
        check_number(self.tau, "tau", low=0.0, low_open=True)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready settings; the calibration mode as it ran (``mode``: engine, fallback engines, priors).

        Returns
        -------
        dict of str to Any
            The fields by name.
        """
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "mode"}
        out["mode"] = self.mode.to_dict()
        return out


def given_settings(settings: Settings | None, old: Mapping[str, Any]) -> Settings:
    """The Settings of a call: ``settings`` as given, or one made of the old keyword arguments a caller still
    passes (``old``: field -> value, read by :func:`irtbridge._moved.moved_keywords`), or the defaults.

    Parameters
    ----------
    settings : Settings or None
        The caller's settings, if any.
    old : mapping of str to Any
        Old keyword arguments, field -> value (cannot be mixed with ``settings``).

    Returns
    -------
    Settings
        The settings of the call.

    Examples
    --------
    >>> given_settings(None, {"seed": 3}).seed
    3
    """
    if settings is not None and old:
        raise ValidationError("pass either settings or the old keywords (" + ", ".join(old) + "), not both")
    if settings is not None:
        if not isinstance(settings, Settings):
            raise ValidationError(f"settings must be an irtbridge Settings object, got {type(settings).__name__}")
        return settings
    fields = dict(old)
    if isinstance(fields.get("pool"), list):
        fields["pool"] = tuple(fields["pool"])  # a frozen object holds a tuple
    return Settings(**fields)
