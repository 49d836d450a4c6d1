"""A :class:`~irtbridge.calibration.Calibration` as plain data: :class:`SerialMixin`.

``to_dict``/``to_json`` write every field but the live R model, ``from_json`` reads them back, and
``without_r_model`` drops the live model in place of a copy through JSON. Pickling is the result's own
(``Calibration.__getstate__``, :mod:`~irtbridge.calibration.results._pickle`).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Callable, Mapping, TypeVar

import numpy as np
import pandas as pd

from irtbridge.calibration.results._se import PendingStandardErrors, raw_state

__all__ = ["SerialMixin"]

_Fit = TypeVar("_Fit", bound="SerialMixin")


def _rows(frame: pd.DataFrame, key: str) -> list[dict[str, Any]]:
    """``frame`` as JSON rows: ``{key: row name, column: float or None}`` (NaN as None)."""
    return [{key: name, **{k: (None if pd.isna(v) else float(v)) for k, v in row.items()}}
            for name, row in frame.iterrows()]


def _json_ready(value: Any) -> Any:
    """Options as JSON can hold them: arrays (``gpcm_mats``' matrices) become nested lists, ``pandas.NA``
    (mirt's ``TOL = NA``) null."""
    if value is pd.NA:
        return None
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, Mapping):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    return value


class SerialMixin:
    """Serialisation of :class:`~irtbridge.calibration.Calibration` (mixed into it): JSON, and a copy
    without the live R model."""

    if TYPE_CHECKING:  # the fields of the dataclass it is mixed into (Calibration and FitResult)
        items: pd.DataFrame
        standard_errors: pd.DataFrame
        model: str
        engine: str
        n_respondents: int
        latent_mean: float
        latent_var: float
        dropped_items: tuple[str, ...]
        factors: tuple[str, ...]
        item_types: tuple[str, ...]
        latent_regression: pd.DataFrame | None
        item_mins: Mapping[str, float]
        loglik: float
        aic: float
        bic: float
        n_parameters: int
        converged: bool
        iterations: int
        options: Mapping[str, Any]
        warnings: tuple[str, ...]
        provenance: Mapping[str, Any]

        def _replace(self: _Fit, **changes: Any) -> _Fit: ...

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict: the CLI's ``--json`` object plus the remaining fields.

        Returns
        -------
        dict
            Every field but ``r_model``, in JSON's types: ``model``, ``engine``, ``loglik``, ``aic``,
            ``bic``, ``converged``, ``items`` (a list of rows ``{"item": name, column: value}``, NaN as
            ``None``), ``standard_errors`` (rows as ``items``; ``None`` when not computed yet: writing
            never computes them), ``n_parameters``, ``iterations``, ``n_respondents``, ``latent_mean``,
            ``latent_var``, ``options`` (arrays as nested lists), ``warnings``, ``provenance``,
            ``dropped_items``, ``factors``, ``item_types``, ``latent_regression`` (rows ``{"term": name,
            ...}``; only when the model has one) and ``item_mins``.
        """
        return {
            "model": self.model,
            "engine": self.engine,
            "loglik": self.loglik,
            "aic": self.aic,
            "bic": self.bic,
            "converged": bool(self.converged),
            "items": _rows(self.items, "item"),
            # only when in hand: writing JSON never computes them (null: not computed)
            "standard_errors": (_rows(self.standard_errors, "item")
                                if isinstance(raw_state(self), pd.DataFrame) else None),
            "n_parameters": int(self.n_parameters),
            "iterations": int(self.iterations),
            "n_respondents": int(self.n_respondents),
            "latent_mean": self.latent_mean,
            "latent_var": self.latent_var,
            "options": _json_ready(dict(self.options)),  # e.g. gpcm_mats: arrays as lists
            "warnings": list(self.warnings),
            "provenance": dict(self.provenance),
            "dropped_items": list(self.dropped_items),
            "factors": list(self.factors),
            "item_types": list(self.item_types),
            **({"latent_regression": _rows(self.latent_regression, "term")}
               if self.latent_regression is not None else {}),
            "item_mins": dict(self.item_mins),
        }

    def to_json(self, **kwargs: Any) -> str:
        """Serialize every estimate (not the R handle) to JSON; :meth:`from_json` reads it back.

        Parameters
        ----------
        **kwargs
            Passed to :func:`json.dumps` (``indent=2``, ...).

        Returns
        -------
        str
            The JSON text of :meth:`to_dict`.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", engine="native")
        >>> back = irtbridge.Calibration.from_json(fit.to_json())
        >>> back.items.equals(fit.items), back.loglik == fit.loglik, back.r_model is None
        (True, True, True)
        """
        return json.dumps(self.to_dict(), **kwargs)

    @classmethod
    def from_json(cls: type[_Fit], text: str) -> _Fit:
        """The Calibration that :meth:`to_json` wrote (without an R model).

        Parameters
        ----------
        text : str
            JSON written by :meth:`to_json` (fields added since, ``factors``, ``item_types``,
            ``latent_regression`` and ``item_mins``, may be missing: they take their defaults).

        Returns
        -------
        Calibration
            Of the class ``from_json`` is called on, with ``r_model=None``; standard errors that were not
            written (``null``) cannot be computed any more (reading them raises).
        """
        d = json.loads(text.removeprefix("\ufeff"))  # a byte-order mark, as a file read without utf-8-sig keeps it

        def frame(rows: list[dict[str, Any]], key: str) -> pd.DataFrame:
            return pd.DataFrame(rows).set_index(key).astype(float).rename_axis(None)

        make: Callable[..., _Fit] = cls
        return make(
            items=frame(d["items"], "item"),
            standard_errors=frame(d["standard_errors"], "item") if d.get("standard_errors") is not None else None,
            loglik=d["loglik"],
            aic=d["aic"], bic=d["bic"], n_parameters=d["n_parameters"], converged=d["converged"],
            iterations=d["iterations"], model=d["model"], engine=d["engine"], n_respondents=d["n_respondents"],
            latent_mean=d["latent_mean"], latent_var=d["latent_var"], options=d["options"],
            warnings=tuple(d["warnings"]), provenance=d["provenance"], dropped_items=tuple(d["dropped_items"]),
            factors=tuple(d.get("factors", ("F1",))), item_types=tuple(d.get("item_types", ())),
            latent_regression=frame(d["latent_regression"], "term") if d.get("latent_regression") else None,
            item_mins=dict(d.get("item_mins", {})),
        )

    def without_r_model(self: _Fit) -> _Fit:
        """This fit without its live R model; standard errors not computed yet from it are then lost
        (reading them raises, as for an unpickled fit).

        Returns
        -------
        Calibration
            A copy with ``r_model=None``; standard errors already computed, or pending from a source that
            needs no R model (the native engine's), are kept.
        """
        state = raw_state(self)
        if isinstance(state, PendingStandardErrors) and state.needs_r:
            state = None
        return self._replace(r_model=None, standard_errors=state)
