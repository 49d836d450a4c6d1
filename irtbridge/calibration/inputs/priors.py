"""Prior distributions on item parameters, as mirt puts them in its parameter table.

mirt places priors on its internal (slope-intercept) parameters: ``a1`` (slope), ``d`` (intercept;
``d1..dk`` for graded/gpcm), ``g`` and ``u`` (lower/upper asymptote). The distributions are mirt's:
``norm`` (mean, sd), ``lnorm`` (meanlog, sdlog), ``beta`` (shape1, shape2) and ``expbeta`` (a beta
prior on ``g``/``u`` applied on their probability scale although mirt estimates them on the logit scale).

R equivalent: ``sv <- mirt(data, 1, itemtype, pars = "values")``, then ``sv$prior.type``,
``sv$prior_1`` and ``sv$prior_2`` set on the rows of the parameter, and ``mirt(..., pars = sv)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from irtbridge._validation import show_value
from irtbridge.exceptions import ValidationError

__all__ = ["Prior", "parse_priors", "DISTRIBUTIONS"]

DISTRIBUTIONS = ("norm", "lnorm", "beta", "expbeta")
_ALIASES = {"a": "a1"}


@dataclass(frozen=True)
class Prior:
    """A prior on one item parameter: ``dist(p1, p2)`` on ``param`` of ``items`` (None: every item).

    Parameters
    ----------
    param : str
        mirt's parameter name (``a1``, ``d``, ``g``, ...).
    dist : str
        mirt's prior family (``norm``, ``lnorm``, ``beta``, ``expbeta``).
    p1, p2 : float
        The family's two parameters.
    items : tuple of str, optional
        The items it applies to; None: every item.

    Examples
    --------
    >>> Prior("a1", "lnorm", 0.0, 0.5)
    Prior(param='a1', dist='lnorm', p1=0.0, p2=0.5, items=None)
    """

    param: str
    dist: str
    p1: float
    p2: float
    items: tuple[str, ...] | None = None

    def to_r(self) -> dict[str, Any]:
        """The prior as the R helper receives it.

        Returns
        -------
        dict of str to Any
            ``param``, ``type`` (the family), ``p1``, ``p2`` and the items.
        """
        return {"param": self.param, "type": self.dist, "p1": float(self.p1), "p2": float(self.p2),
                "items": list(self.items) if self.items is not None else None}


def _one(param: str, spec: Any) -> Prior:
    if isinstance(spec, Prior):
        return spec
    if isinstance(spec, str):
        parts = [p.strip() for p in spec.split(",")]
        if len(parts) != 3:
            raise ValidationError(f"prior for {param!r} must be 'DIST,P1,P2', got {spec!r}")
        spec = parts
    items = None
    if isinstance(spec, Mapping):
        unknown = set(spec) - {"dist", "p1", "p2", "items"}
        if unknown:
            raise ValidationError(f"prior for {param!r}: unknown key(s) {sorted(unknown)}; use dist, p1, p2, items")
        items = spec.get("items")
        spec = (spec.get("dist"), spec.get("p1"), spec.get("p2"))
    if not isinstance(spec, Sequence) or len(spec) != 3:
        raise ValidationError(f"prior for {param!r} must be (dist, p1, p2), got {show_value(spec)}")
    dist, p1, p2 = spec
    try:
        p1, p2 = float(p1), float(p2)
    except (TypeError, ValueError):
        raise ValidationError(f"prior for {param!r}: parameters must be numbers, got {p1!r}, {p2!r}") from None
    if isinstance(items, str):
        items = [items]
    return Prior(param, str(dist), p1, p2, tuple(str(i) for i in items) if items is not None else None)


def parse_priors(priors: Any, item_names: Iterable[str]) -> list[Prior]:
    """Validate the form of ``priors`` for the fitted items; one-line errors name what is wrong.

    ``priors`` is a mapping ``{param: (dist, p1, p2)}`` (every item), ``{param: {"dist", "p1", "p2",
    "items"}}`` (some items), ``{param: "dist,p1,p2"}``, or a list of :class:`Prior`. Whether the model
    has and estimates each parameter is checked against mirt's own parameter table by
    :func:`irtbridge.calibrate` before the fit (:mod:`irtbridge.calibration.inputs.checks`).

    Parameters
    ----------
    priors : mapping, list of Prior or None
        The forms above.
    item_names : iterable of str
        The fitted items.

    Returns
    -------
    list of Prior
        Empty when ``priors`` is None or empty.

    Examples
    --------
    >>> parse_priors({"a": ("lnorm", 0, 0.5), "g": "expbeta,5,17"}, ["x", "y"])
    [Prior(param='a1', dist='lnorm', p1=0.0, p2=0.5, items=None), Prior(param='g', dist='expbeta', p1=5.0, p2=17.0, items=None)]
    """
    if priors is None:
        return []
    if isinstance(priors, Mapping):
        parsed = [_one(str(k), v) for k, v in priors.items()]
    elif isinstance(priors, (list, tuple)) and all(isinstance(p, Prior) for p in priors):
        parsed = list(priors)
    else:
        raise ValidationError(f"priors must be a mapping {{param: (dist, p1, p2)}} or a list of Prior, got {show_value(priors)}")
    names = set(item_names)
    out = []
    for p in parsed:
        param = _ALIASES.get(p.param, p.param)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", param):
            raise ValidationError(f"priors: {p.param!r} is not a mirt parameter name (a1, d, g, u, d1, ...)")
        if p.dist not in DISTRIBUTIONS:
            raise ValidationError(f"priors: unknown distribution {p.dist!r} for {p.param!r}; use one of {DISTRIBUTIONS}")
        if p.dist in ("lnorm", "norm") and p.p2 <= 0 or p.dist in ("beta", "expbeta") and min(p.p1, p.p2) <= 0:
            raise ValidationError(f"priors: {p.dist}({p.p1:g}, {p.p2:g}) on {p.param!r} is not a proper distribution")
        if p.items is not None:
            unknown = [i for i in p.items if i not in names]
            if unknown:
                raise ValidationError(f"priors: unknown item(s) {unknown[:5]} in the prior on {p.param!r}")
        out.append(Prior(param, p.dist, p.p1, p.p2, p.items))
    return out
