"""Example data that works offline: the datasets shipped with installed R packages and scikit-learn.

R datasets come through the bridge as plain data.frames (factors become strings), so loading them needs
R; scikit-learn's bundled sets do not.
"""

from __future__ import annotations

import pandas as pd

from irtbridge._constraints import Choice, constraints
from irtbridge._validation import check_choice

__all__ = ["r_dataset", "response_dataset", "RESPONSE_DATASETS"]

# Response matrices used in the docs and tests: name -> (R package, dataset, how it is stored)
RESPONSE_DATASETS = {
    "LSAT7": ("mirt", "LSAT7", "table"),   # 5 dichotomous items, 1000 respondents, as a pattern table
    "LSAT": ("ltm", "LSAT", "raw"),        # the same LSAT section 7 data, one row per respondent
    "SAT12": ("mirt", "SAT12", "key"),     # 32 multiple-choice items, scored with the key of ?SAT12
    "Science": ("mirt", "Science", "raw"),  # 4 items with 4 ordered categories, 392 respondents
    "Abortion": ("ltm", "Abortion", "raw"),  # 4 dichotomous items, 379 respondents
}


def r_dataset(package: str, name: str) -> pd.DataFrame:
    """Load dataset ``name`` from the installed R package ``package`` (R's ``data(name, package=)``).

    Parameters
    ----------
    package : str
        The R package.
    name : str
        The dataset's name in it.

    Returns
    -------
    DataFrame
        The dataset (R's data.frame converted).

    Examples
    --------
    >>> german = r_dataset("caret", "GermanCredit")     # doctest: +R
    >>> german.shape
    (1000, 62)
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    session.ensure_packages(package)
    return session.call("irtb_dataset", package=package, name=name)


@constraints(name=Choice(tuple(RESPONSE_DATASETS), ignore_case=True))
def response_dataset(name: str = "LSAT") -> pd.DataFrame:
    """A classic IRT response matrix from mirt or ltm, one row per respondent.

    ``LSAT7`` is expanded from mirt's pattern table (``expand.table``); ``SAT12`` is scored 0/1 with the
    answer key from mirt's documentation (``key2binary``), its missing responses (code 8) kept missing.

    Parameters
    ----------
    name : str, default "LSAT"
        The dataset's name (see the list above).

    Returns
    -------
    DataFrame
        Respondents x items.
    """
    from irtbridge._r import session  # the R boundary loads with the first R call, never on import

    name = check_choice(name, "name", RESPONSE_DATASETS, ignore_case=True)
    package, dataset, kind = RESPONSE_DATASETS[name]
    session.ensure_packages(package)
    return session.call("irtb_response_dataset", package=package, name=dataset, kind=kind)
