"""The fit report of ``irtbridge fit`` and of batch ``fit`` units: global fit, reliability, item fit, misfits.

One function, :func:`fit_report`, so the command and the batch unit report the same numbers in the same
shape.
"""

from __future__ import annotations

import warnings
from typing import Any

from irtbridge.exceptions import IrtBridgeError

__all__ = ["MISFIT_RULE", "fit_report"]

#: the rule that names an item misfitting
MISFIT_RULE = "S_X2 p-value adjusted over items (Benjamini-Hochberg) below 0.05"


def fit_report(fit: Any, *, na_rm: bool = False, impute: int = 0, seed: int = 0) -> dict[str, Any]:
    """mirt's global fit (M2), reliability and item fit (S-X2) of a mirt calibration, as one JSON-ready dict.

    Parameters
    ----------
    fit : Calibration
        A mirt fit made in this process (the diagnostics ask the live R model).
    na_rm : bool, default False
    impute : int, default 0
    seed : int, default 0
        How item fit treats missing answers (:meth:`Calibration.item_fit`): leave incomplete respondents out
        (mirt's ``na.rm = TRUE``) or impute them ``impute`` times (plausible values, seeded by ``seed``).

    Returns
    -------
    dict
        ``model``, ``engine``; ``global``: ``M2, df, p, RMSEA, RMSEA_5, RMSEA_95, SRMSR, TLI, CFI`` (or
        ``{"error": ...}`` where M2 is not defined, e.g. too few degrees of freedom: the rest of the report
        is kept); ``reliability``: ``marginal``, ``empirical``; ``items``: one ``{item, S_X2, df, p, RMSEA,
        p_adjusted}`` per item; ``misfitting``: the items whose adjusted p is below 0.05; ``misfit_rule``.

    Notes
    -----
    R equivalent: ``M2(fit)``, ``marginal_rxx(fit)``, ``empirical_rxx(fscores(fit, full.scores.SE = TRUE))``
    and ``itemfit(fit, "S_X2")`` with ``p.adjust(p, "BH")``.

    Examples
    --------
    >>> import irtbridge
    >>> from irtbridge.example_data import response_dataset
    >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)   # doctest: +R
    >>> report = fit_report(fit)                                                # doctest: +R
    >>> round(report["global"]["M2"], 3), report["misfitting"]                  # doctest: +R
    (11.938, ['Item.2'])

    (R: ``M2(fit)$M2`` is 11.93769; ``itemfit(fit)`` gives Item.2 S-X2 14.453 on 2 df, p 0.001, BH-adjusted
    0.0036, the only adjusted p below 0.05.)
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        items = fit.item_fit(["S_X2"], na_rm=na_rm, impute=impute, seed=seed)
        rows = [{"item": str(k), "S_X2": r["S_X2"], "df": r["df.S_X2"], "p": r["p.S_X2"], "RMSEA": r["RMSEA.S_X2"],
                 "p_adjusted": r["p_adjusted_S_X2"]} for k, r in items.iterrows()]
        try:
            g = fit.global_fit()
            glob: dict[str, Any] = {k: float(g[k]) for k in ("M2", "df", "p", "RMSEA", "RMSEA_5", "RMSEA_95", "SRMSR",
                                                             "TLI", "CFI")}
        except (IrtBridgeError, ValueError) as exc:
            glob = {"error": str(exc).splitlines()[0]}
        rel = fit.reliability()
    return {
        "model": fit.model, "engine": fit.engine,
        "global": glob,
        "reliability": {"marginal": rel["marginal"], "empirical": rel["empirical"]},
        "items": rows,
        "misfitting": [r["item"] for r in rows if r["p_adjusted"] == r["p_adjusted"] and r["p_adjusted"] < 0.05],
        "misfit_rule": MISFIT_RULE,
    }
