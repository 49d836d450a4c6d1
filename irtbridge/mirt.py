"""Every exported function of R's mirt, by its R name: ``irtbridge.mirt.DRF(group_fit)``.

The typed passthrough for mirt scripts that irtbridge has no first-class wrapper for (yet). Each
attribute is mirt's exported function of that name; call it as in R, with Python values:

>>> import irtbridge
>>> from irtbridge.example_data import response_dataset
>>> science = response_dataset("Science")                                # doctest: +R
>>> fit = irtbridge.mirt.mirt(science, 1, itemtype="graded")             # a Calibration
>>> fit.model, fit.items.shape
('graded', (4, 4))
>>> round(irtbridge.mirt.M2(fit, type="C2").loc["stats", "M2"], 3)       # M2(fit, type = "C2")
19.179
>>> irtbridge.mirt.extract_mirt(fit, "nest")                             # extract.mirt(fit, "nest")
16

Names: R's own, with its dots written as underscores where Python needs it (``extract_mirt`` is
``extract.mirt``; ``getattr(irtbridge.mirt, "extract.mirt")`` works too). ``dir(irtbridge.mirt)``
lists mirt's exports (asked from R's ``getNamespaceExports`` once per process; this starts R); an
unknown name is an :class:`~irtbridge.exceptions.UnknownRFunctionError` (an AttributeError) suggesting
close names.

Arguments: positional or by R's argument names. A keyword that the function (or the method that will
run, for generics such as ``residuals``) does not have, but whose underscores read as dots, is the
dotted argument: ``full_scores_SE=True`` is ``full.scores.SE = TRUE``; ``fit_stats`` stays
``fit_stats`` (itemfit's own name). ``verbose`` defaults to ``FALSE``. ``seed=s`` runs
``set.seed(s)`` just before the call unless the function has an argument ``seed`` of its own.

Every keyword must name a formal argument of the function, or of the method R will dispatch to for the
first argument (``coef`` of a group fit is ``coef`` of ``MultipleGroupClass``, whose formals are only
``object, ...``); mirt's fitting functions (``mirt``, ``multipleGroup``, ``bfactor``, ``mdirt``,
``mixedmirt``) also take the estimation options their ``...`` hands on (``TOL``, ``technical``, ...);
``itemfit`` and ``residuals`` those of ``fscores`` (``itemfit(fit, QMC=True)``), ``M2`` its internal
``use_dentype_estimate``, and ``coef``, ``summary`` and ``residuals`` of a group fit those of each group's
method (``coef(group_fit, printSE=True)``), as mirt's own code hands them on.
Any other keyword would vanish into R's ``...``: it is a one-line
:class:`~irtbridge.exceptions.ValidationError` naming close formal names (``fscores(fit,
full_scores_se=True)``: did you mean ``'full.scores.SE'``?), raised before R runs anything. For the rare
function whose ``...`` is the point (a plot's graphical parameters, a group method handing them on to
each group), ``allow_extra=True`` passes every keyword as given. Values with a bounded domain
(``quadpts``, ``TOL``, ``technical`` entries, ``theta_lim``, ...) are checked too
(:mod:`irtbridge._catalogue`), so ``fscores(fit, quadpts=0)`` is refused instead of returning NaN.

Conversion (both ways, at the call): an irtbridge ``Calibration`` or ``GroupCalibration`` is its live
R model; DataFrame -> data.frame (names verbatim), numpy -> vector/matrix (NaN -> NA), Series -> named
vector, dict -> named list, list -> vector or list, None -> NULL, a lone float NaN -> NaN and ``pandas.NA``
-> NA (mirt's ``TOL = NaN`` and ``TOL = NA``). Back: data.frame -> DataFrame, matrix
-> DataFrame with dimnames, named vector -> Series, unnamed vector -> ndarray (length one: a scalar),
list -> dict or list, a fitted mirt model -> ``Calibration`` (``MultipleGroupClass`` ->
``GroupCalibration``), anything else -> an opaque ``RObject`` (an S3 list: ``RList``, readable by
name) that can be passed back. R errors raise :class:`~irtbridge.exceptions.RError` with R's message,
each distinct R warning is one :class:`~irtbridge.exceptions.RWarning`, and a value with no R
counterpart is a one-line :class:`~irtbridge.exceptions.ValidationError` naming the argument.
See docs/coming-from-r.md ("Any mirt or ltm function").
"""

import irtbridge._rfunctions as _rfunctions


def __getattr__(name: str):
    return _rfunctions.module_getattr("mirt", name)


def __dir__() -> list[str]:
    return _rfunctions.module_dir("mirt", list(globals()))
