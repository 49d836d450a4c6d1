"""Confirmatory and bifactor structures for mirt: :class:`ModelSpec`.

A :class:`ModelSpec` is built from Python structures (factors → items, covariances, equality
constraints, priors, fixed values) or from mirt's own model syntax text. Either way it reaches R as a
character string handed to ``mirt.model()`` as data: it is never pasted into R source. Specs built from
Python refer to items by position (mirt's ``1-4`` ranges), so any item name is safe; syntax text is
checked here for unknown item names before R sees it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import pandas as pd

from irtbridge._validation import show_value
from irtbridge.calibration.inputs.priors import DISTRIBUTIONS, Prior
from irtbridge.exceptions import ValidationError

__all__ = ["ModelSpec", "KEYWORDS", "Reference", "syntax_references", "syntax_groups", "structure_arguments",
           "parameter_columns"]

# mirt.model's keywords: every other left-hand side names a factor
KEYWORDS = ("COV", "MEAN", "CONSTRAIN", "CONSTRAINB", "PRIOR", "FIXED", "FREE", "START", "LBOUND", "UBOUND",
            "NEXPLORE")
# a safe parameter name for the syntax text; whether the model has it is checked against mirt's own
# parameter table before the fit (irtbridge.calibration.inputs.checks)
_PARAM = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# keyword → how many trailing tokens of each (...) group follow the items: the parameter name and its
# arguments (CONSTRAIN: every token that is not an item names a parameter)
NAMING = {"CONSTRAIN": 0, "CONSTRAINB": 1, "PRIOR": 4, "START": 2, "LBOUND": 2, "UBOUND": 2, "FIXED": 1, "FREE": 1}


@dataclass(frozen=True)
class ModelSpec:
    """A factor structure with constraints, priors and fixed values, for ``calibrate(..., spec=...)``.

    Parameters
    ----------
    factors : mapping of str to items
        Factor name → its items: a list of item names, a ``"FIRST:LAST"`` string (items FIRST to LAST in
        column order) or a ``range`` of 0-based column positions. An item may load on several factors
        (bifactor: a general factor over all items plus specific ones).
    covariances : sequence of (str, str)
        Pairs of factors whose covariance is estimated (mirt's ``COV = F1*F2``); others stay at 0.
    means : sequence of str
        Factors whose latent mean is estimated (``MEAN = F1``; needs fixed anchors to be identified).
    equal : sequence of (param, items)
        Equality constraints across items, e.g. ``("a1", ["i1", "i2", "i3"])`` (``CONSTRAIN``).
    priors : sequence of Prior
        Priors on item parameters (``PRIOR``); ``Prior.items=None`` means every item.
    fixed : mapping of (item, param) to float
        Parameters fixed at a value (``START`` then ``FIXED``).
    syntax : str, optional
        mirt.model text instead of the structures above (:meth:`from_syntax`).

    Examples
    --------
    >>> spec = ModelSpec({"F1": ["i1", "i2", "i3"], "F2": "i4:i6"}, covariances=[("F1", "F2")],
    ...                  equal=[("a1", ["i1", "i2"])])
    >>> print(spec.to_syntax(["i1", "i2", "i3", "i4", "i5", "i6"]))
    F1 = 1-3
    F2 = 4-6
    COV = F1*F2
    CONSTRAIN = (1, 2, a1)
    """

    factors: Mapping[str, Any] = field(default_factory=dict)
    covariances: Sequence[tuple[str, str]] = ()
    means: Sequence[str] = ()
    equal: Sequence[tuple[str, Sequence[str]]] = ()
    priors: Sequence[Prior] = ()
    fixed: Mapping[tuple[str, str], float] = field(default_factory=dict)
    syntax: str | None = None

    @classmethod
    def from_syntax(cls, text: str) -> "ModelSpec":
        """A spec from mirt's model syntax (``mirt.model``), e.g. ``"F1 = 1-5\\nF2 = 6-10\\nCOV = F1*F2"``.

        Parameters
        ----------
        text : str
            mirt.model text.

        Returns
        -------
        ModelSpec
            The spec.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValidationError(f"spec: model syntax must be non-empty text, got {show_value(text)}")
        return cls(syntax=text)

    # -- the text mirt.model() receives -----------------------------------------------------------------
    def factor_names(self, item_names: Sequence[str]) -> list[str]:
        """The factors, in order (parsed from the syntax when the spec is text).

        Parameters
        ----------
        item_names : sequence of str
            The items (the syntax numbers them).

        Returns
        -------
        list of str
            The factor names.
        """
        if self.syntax is None:
            return [str(f) for f in self.factors]
        return list(_syntax_factors(self.syntax, list(item_names)))

    def to_syntax(self, item_names: Sequence[str]) -> str:
        """mirt.model text for these items; one-line :class:`ValidationError` for anything unknown.

        Parameters
        ----------
        item_names : sequence of str
            The items, in column order.

        Returns
        -------
        str
            The mirt.model text.
        """
        names = [str(n) for n in item_names]
        if self.syntax is not None:
            _syntax_factors(self.syntax, names)  # validates the items it names
            return self.syntax
        if not self.factors:
            raise ValidationError("spec: a ModelSpec needs at least one factor (or model syntax text)")
        position = {n: i + 1 for i, n in enumerate(names)}
        factors = [str(f) for f in self.factors]
        for f in factors:
            if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_.]*", f) or f in KEYWORDS or f in position:
                raise ValidationError(f"spec: {f!r} cannot name a factor (letters, digits, '_' or '.'; not a "
                                      "mirt keyword or an item name)")
        lines = [f"{f} = {_ranges(_items(self.factors[f], names, position, f'factor {f!r}'))}" for f in self.factors]
        known = set(factors)
        for pair in self.covariances:
            bad = [f for f in pair if f not in known]
            if len(pair) != 2 or bad:
                raise ValidationError(f"spec: covariance {show_value(pair)} names unknown factor(s) {bad}")
        if self.covariances:
            lines.append("COV = " + ", ".join(f"{a}*{b}" for a, b in self.covariances))
        bad = [f for f in self.means if f not in known]
        if bad:
            raise ValidationError(f"spec: means name unknown factor(s) {bad}")
        if self.means:
            lines.append("MEAN = " + ", ".join(self.means))
        if self.equal:
            groups = []
            for param, items in self.equal:
                idx = _items(items, names, position, f"equality constraint on {param!r}")
                groups.append(f"({', '.join(map(str, idx))}, {_param(param)})")
            lines.append("CONSTRAIN = " + ", ".join(groups))
        if self.priors:
            parts = []
            for p in self.priors:
                if p.dist not in DISTRIBUTIONS:
                    raise ValidationError(f"spec: unknown prior distribution {p.dist!r}; use one of {DISTRIBUTIONS}")
                idx = (list(range(1, len(names) + 1)) if p.items is None
                       else _items(p.items, names, position, f"prior on {p.param!r}"))
                parts.append(f"({_ranges(idx)}, {_param(p.param)}, {p.dist}, {p.p1!r}, {p.p2!r})")
            lines.append("PRIOR = " + ", ".join(parts))
        if self.fixed:
            starts, fixes = [], []
            for (item, param), value in self.fixed.items():
                i = _items([item], names, position, f"fixed value of {param!r}")[0]
                starts.append(f"({i}, {_param(param)}, {float(value)!r})")
                fixes.append(f"({i}, {_param(param)})")
            lines += ["START = " + ", ".join(starts), "FIXED = " + ", ".join(fixes)]
        return "\n".join(lines)


def _param(param: str) -> str:
    p = {"a": "a1"}.get(str(param), str(param))
    if not _PARAM.fullmatch(p):
        raise ValidationError(f"spec: {param!r} is not a mirt parameter name (a1, d, d1, g, u, ak0, b1, c, ...)")
    return p


def _items(spec: Any, names: list[str], position: dict[str, int], what: str) -> list[int]:
    """1-based positions of the items a spec names (list of names, "FIRST:LAST" or a range)."""
    if isinstance(spec, range):
        out = [i + 1 for i in spec]
        if not out or min(out) < 1 or max(out) > len(names):
            raise ValidationError(f"spec: {what}: positions {spec} are outside 0..{len(names) - 1}")
        return out
    if isinstance(spec, str):
        if ":" in spec and spec not in position:
            first, last = (s.strip() for s in spec.split(":", 1))
            unknown = [s for s in (first, last) if s not in position]
            if unknown:
                raise ValidationError(f"spec: {what}: unknown item(s) {unknown} in the range {spec!r}")
            if position[first] > position[last]:
                raise ValidationError(f"spec: {what}: the range {spec!r} runs backwards")
            return list(range(position[first], position[last] + 1))
        spec = [spec]
    items = [str(s) for s in spec]
    unknown = [s for s in items if s not in position]
    if unknown or not items:
        raise ValidationError(f"spec: {what}: unknown item(s) {unknown[:5] or '(none given)'}")
    return [position[s] for s in items]


def _ranges(idx: Sequence[int]) -> str:
    """[1, 2, 3, 5] → "1-3, 5" (mirt.model's notation)."""
    idx = sorted(set(idx))
    out: list[str] = []
    start: int | None = idx[0]
    for prev, cur in zip(idx, idx[1:] + [None]):
        if cur != prev + 1:
            out.append(str(start) if start == prev else f"{start}-{prev}")
            start = cur
    return ", ".join(out)


def _syntax_lines(text: str) -> list[tuple[str, str]]:
    """(left, right) of each statement, read as mirt.model reads them: ';' ends a statement, '#' starts
    a comment, and a line without '=' continues the one before it."""
    statements: list[str] = []
    for raw in text.replace(";", "\n").split("\n"):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        if "=" in line or not statements:
            statements.append(line)
        else:
            statements[-1] += " " + line
    out = []
    for line in statements:
        if "=" not in line:
            raise ValidationError(f"spec: cannot read the model syntax line {line!r} (expected NAME = ...)")
        lhs, rhs = (s.strip() for s in line.split("=", 1))
        out.append((lhs, rhs))
    return out


def _syntax_factors(text: str, names: list[str]) -> list[str]:
    """The factor names in mirt.model text, checking that every item it names exists."""
    known = set(names)
    factors = []
    for lhs, rhs in _syntax_lines(text):
        if lhs.split("[", 1)[0].strip() in KEYWORDS:  # a keyword, perhaps with mirt's [group] suffix
            continue
        factors.append(lhs)
        for token in (t.strip() for t in rhs.split(",")):
            if re.fullmatch(r"\d+(\s*-\s*\d+)?", token):
                if max(int(x) for x in re.findall(r"\d+", token)) > len(names):
                    raise ValidationError(f"spec: factor {lhs!r} names item {token!r}; there are {len(names)} items")
            elif token not in known:
                raise ValidationError(f"spec: factor {lhs!r} names unknown item {token!r}")
    if not factors:
        raise ValidationError("spec: the model syntax defines no factor (a line like F1 = 1-5)")
    return factors


def syntax_groups(text: str) -> list[str]:
    """The groups named in mirt.model text by a keyword's ``[group]`` suffix (multiple-group models:
    ``FIXED [male] = (1, d)``, ``PRIOR [a, b] = ...``), in order of appearance.

    Parameters
    ----------
    text : str
        mirt.model text.

    Returns
    -------
    list of str
        The group names, each once.

    Examples
    --------
    >>> syntax_groups("F = 1-5\\nFIXED [male] = (1, d)\\nSTART [male, female] = (2, d, 0.5)")
    ['male', 'female']
    """
    out: list[str] = []
    for lhs, _ in _syntax_lines(text):
        keyword, bracket, rest = lhs.partition("[")
        if not bracket or keyword.strip() not in KEYWORDS:
            continue
        inside, closed, tail = rest.partition("]")
        if not closed or tail.strip():
            raise ValidationError(f"spec: cannot read {lhs!r} (expected KEYWORD [group, ...] = ...)")
        for name in (g.strip() for g in inside.split(",")):
            if not name:
                raise ValidationError(f"spec: {lhs!r} names an empty group")
            if name not in out:
                out.append(name)
    return out


@dataclass(frozen=True)
class Reference:
    """One item parameter named by a prior, constraint or fixed value (``item`` is ``"GROUP"`` for the
    latent mean/covariance rows of mirt's parameter table).

    Parameters
    ----------
    keyword : str
        The keyword that names it (``PRIOR``, ``FIXED``, ``CONSTRAIN``, ...).
    item : str
        The item (or ``"GROUP"``).
    param : str
        mirt's parameter name.
    origin : str, default "spec"
        Where it came from, for messages: ``"spec"``, ``"priors"`` or a keyword argument (``"which"``).
    """

    keyword: str
    item: str
    param: str
    origin: str = "spec"


def syntax_references(text: str, item_names: Sequence[str]) -> tuple[str, list[Reference]]:
    """The structural part of mirt.model text and every parameter its keyword lines name.

    The structural part (factors, ``COV``, ``MEAN``, ``NEXPLORE``) is what decides which parameters
    exist; the references (``CONSTRAIN``, ``PRIOR``, ``START``, ``FIXED``...) are then checked against
    mirt's parameter table for it (:func:`irtbridge.calibration.inputs.checks.check_references`).

    Parameters
    ----------
    text : str
        mirt.model text.
    item_names : sequence of str
        The items, in column order (mirt.model numbers them from 1).

    Returns
    -------
    structure : str
        The structural lines.
    references : list of Reference
        The parameters the other lines name.

    Examples
    --------
    >>> bare, refs = syntax_references("F1 = 1-3; PRIOR = (1-2, g, norm, 0, 1)", ["x", "y", "z"])
    >>> bare, [(r.keyword, r.item, r.param) for r in refs]
    ('F1 = 1-3', [('PRIOR', 'x', 'g'), ('PRIOR', 'y', 'g')])
    """
    names = [str(n) for n in item_names]
    structure, refs = [], []
    for lhs, rhs in _syntax_lines(text):
        keyword = lhs.split("[", 1)[0].strip()  # mirt's optional [group] suffix
        if keyword not in NAMING:
            structure.append(f"{lhs} = {rhs}")
            continue
        groups = re.findall(r"\(([^()]*)\)", rhs)
        if not groups or re.sub(r"\([^()]*\)|[\s,]", "", rhs):
            raise ValidationError(f"spec: cannot read {keyword} = {rhs!r} (expected (items, parameter...), ...)")
        for group in groups:
            # mirt drops every space inside the brackets (so "1 - 3" is a range)
            refs += _group_references(keyword, [t for t in re.sub(r"\s+", "", group).split(",") if t], names)
    return "\n".join(structure), refs


def _group_references(keyword: str, tokens: list[str], names: list[str]) -> list[Reference]:
    """The (item, parameter) pairs one ``(...)`` group of a keyword line names, as mirt reads them."""
    trailing = NAMING[keyword]
    if trailing:
        if len(tokens) < trailing + 1:
            raise ValidationError(f"spec: {keyword} group ({', '.join(tokens)}) needs items and {trailing} more value(s)")
        items, params = tokens[:-trailing], [tokens[-trailing]]
        if keyword == "PRIOR" and tokens[-3] not in DISTRIBUTIONS:
            raise ValidationError(f"spec: unknown prior distribution {tokens[-3]!r}; use one of {DISTRIBUTIONS}")
    else:  # CONSTRAIN: items are the tokens that name items, the rest name parameters
        items = [t for t in tokens if _is_item(t, names)]
        params = [t for t in tokens if not _is_item(t, names)]
    resolved = [name for t in items for name in _item_token(t, keyword, names)]
    if not resolved or not params:
        raise ValidationError(f"spec: {keyword} group ({', '.join(tokens)}) needs at least one item and one parameter")
    if len(params) == 1:
        pairs = [(i, params[0]) for i in resolved]
    elif len(resolved) == 1:
        pairs = [(resolved[0], p) for p in params]
    elif len(resolved) == len(params):
        pairs = list(zip(resolved, params))
    else:
        raise ValidationError(f"spec: {keyword} group ({', '.join(tokens)}) names {len(resolved)} items but "
                              f"{len(params)} parameters")
    return [Reference(keyword, item, _param(param)) for item, param in pairs]


def _is_item(token: str, names: list[str]) -> bool:
    return token == "GROUP" or token in names or re.fullmatch(r"\d+(-\d+)?", token) is not None


def _item_token(token: str, keyword: str, names: list[str]) -> list[str]:
    """Item names for one token: a 1-based position, a range ``2-5``, an item name or ``GROUP``."""
    if token == "GROUP" or token in names:
        return [token]
    if re.fullmatch(r"\d+(-\d+)?", token):
        bounds = [int(x) for x in token.split("-")]
        if min(bounds) < 1 or max(bounds) > len(names) or bounds[0] > bounds[-1]:
            raise ValidationError(f"spec: {keyword} names item(s) {token!r}; there are {len(names)} items")
        return names[bounds[0] - 1:bounds[-1]]
    raise ValidationError(f"spec: {keyword} names unknown item {token!r}")


def structure_arguments(dims: int, spec: Any, parameters: Any, names: list[str]) -> dict[str, Any]:
    """The R arguments of a structured mirt fit: ``dims`` or mirt.model text, and the parameter table.

    Parameters
    ----------
    dims : int
        The number of exploratory factors.
    spec : ModelSpec, str or None
        A confirmatory structure (a :class:`ModelSpec` or mirt.model text); not with ``dims`` != 1.
    parameters : DataFrame or None
        A parameter table in mirt's columns.
    names : list of str
        The items fitted.

    Returns
    -------
    dict of str to Any
        ``dims``, and ``syntax`` and ``table`` when given.

    Examples
    --------
    >>> structure_arguments(2, None, None, ["q1", "q2", "q3"])
    {'dims': 2}
    """
    out: dict[str, Any] = {"dims": int(dims)}
    if spec is not None:
        if dims != 1:
            raise ValidationError("pass either dims (exploratory) or spec (confirmatory), not both")
        if isinstance(spec, str):
            spec = ModelSpec.from_syntax(spec)
        if not isinstance(spec, ModelSpec):
            raise ValidationError(f"spec must be a ModelSpec or mirt.model text, got {type(spec).__name__}")
        out["syntax"] = spec.to_syntax(names)
    if parameters is not None:
        out["table"] = parameter_columns(parameters)
    return out


def parameter_columns(parameters: Any, priors: bool = True) -> dict[str, Any]:
    """A parameter table as the columns R writes onto mirt's own (``irtb_apply_table``).

    Parameters
    ----------
    parameters : DataFrame
        mirt's columns: ``item``, ``name``, ``value`` and any of ``lbound``, ``ubound``, ``est`` (and, with
        ``priors``, ``prior.type``, ``prior_1``, ``prior_2``).
    priors : bool, default True
        Carry the prior columns.

    Returns
    -------
    dict of str to list or ndarray
        Column -> values (text, flags or numbers).

    Examples
    --------
    >>> table = pd.DataFrame({"item": ["q1"], "name": ["a1"], "value": [1.5], "est": [0]})
    >>> parameter_columns(table)
    {'item': ['q1'], 'name': ['a1'], 'value': array([1.5]), 'est': [False]}
    """
    if not isinstance(parameters, pd.DataFrame) or not {"item", "name", "value"} <= set(parameters.columns):
        raise ValidationError("parameters must be a DataFrame with mirt's columns (item, name, value, est, ...)")
    names = ("item", "name", "value", "lbound", "ubound", "est") + (("prior.type", "prior_1", "prior_2") if priors else ())
    return {c: (parameters[c].astype(str).tolist() if c in ("item", "name", "prior.type")
                else parameters[c].astype(bool).tolist() if c == "est"
                else parameters[c].astype(float).to_numpy()) for c in names if c in parameters.columns}
