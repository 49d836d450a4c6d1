"""Initializers: where each examinee's ability starts before the first item.

An initializer is a small frozen object with one method,
``initialize(bank, n, rng) -> numpy.ndarray`` of shape ``(n,)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irtbridge._validation import check_choice, check_number
from irtbridge.exceptions import ValidationError
from irtbridge.irt import ItemBank

__all__ = ["FixedPointInitializer", "RandomInitializer", "PercentileInitializer", "item_locations"]


def item_locations(bank: ItemBank) -> np.ndarray:
    """Location of each item on the ability scale: ``b`` for dichotomous items, the mean threshold otherwise.

    Parameters
    ----------
    bank : ItemBank
        The items.

    Returns
    -------
    ndarray
        One location per item.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [1.0], "b1": [-1.0], "b2": [2.0]}), "graded")
    >>> item_locations(bank)
    array([0.5])
    """
    if bank.dichotomous:
        return np.asarray(bank.b, dtype=float)
    return np.nanmean(bank.b, axis=1)


@dataclass(frozen=True)
class FixedPointInitializer:
    """Every examinee starts at the same ability (catR ``start = list(theta = value)``).

    Parameters
    ----------
    value : float
        The starting ability.

    Examples
    --------
    >>> FixedPointInitializer(0.5).initialize(None, 3, None)
    array([0.5, 0.5, 0.5])
    """

    value: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", check_number(self.value, "value"))

    def initialize(self, bank: ItemBank | None, n: int, rng: np.random.Generator | None) -> np.ndarray:
        """Starting abilities (the :class:`~irtbridge.cat.protocols.Initializer` contract).

        Parameters
        ----------
        bank : ItemBank, optional
            Not used.
        n : int
            Examinees.
        rng : numpy.random.Generator, optional
            Not used.

        Returns
        -------
        ndarray
            Shape ``(n,)``: ``value`` for every examinee.
        """
        return np.full(n, self.value)


@dataclass(frozen=True)
class RandomInitializer:
    """Each examinee starts at a random ability (catsim's ``RandomInitializer``).

    Parameters
    ----------
    distribution : {"uniform", "normal"}
    parameters : (float, float)
        ``(low, high)`` for ``"uniform"``, ``(mean, sd)`` for ``"normal"``.

    Examples
    --------
    >>> import numpy as np
    >>> start = RandomInitializer("uniform", (-1, 1)).initialize(None, 4, np.random.default_rng(0))
    >>> bool(((start >= -1) & (start < 1)).all())
    True
    """

    distribution: str = "uniform"
    parameters: tuple = (-1.0, 1.0)

    def __post_init__(self) -> None:
        dist = check_choice(self.distribution, "distribution", ("uniform", "normal"))
        if isinstance(self.parameters, (str, bytes)) or len(self.parameters) != 2:
            raise ValidationError(f"parameters must be a pair of numbers, got {self.parameters!r}")
        p = (check_number(self.parameters[0], "parameters[0]"), check_number(self.parameters[1], "parameters[1]"))
        if dist == "uniform" and not p[0] < p[1]:
            raise ValidationError(f"parameters for 'uniform' must be (low, high) with low < high, got {p}")
        if dist == "normal" and p[1] <= 0:
            raise ValidationError(f"parameters for 'normal' must be (mean, sd) with sd > 0, got {p}")
        object.__setattr__(self, "distribution", dist)
        object.__setattr__(self, "parameters", p)

    def initialize(self, bank: ItemBank | None, n: int, rng: np.random.Generator) -> np.ndarray:
        """Starting abilities (the :class:`~irtbridge.cat.protocols.Initializer` contract).

        Parameters
        ----------
        bank : ItemBank, optional
            Not used.
        n : int
            Examinees.
        rng : numpy.random.Generator
            The draws.

        Returns
        -------
        ndarray
            Shape ``(n,)``: Draws from the initializer's distribution.
        """
        a, b = self.parameters
        return rng.uniform(a, b, n) if self.distribution == "uniform" else rng.normal(a, b, n)


@dataclass(frozen=True)
class PercentileInitializer:
    """Start at a percentile of the item locations (the MLC paper, Table 3: the 25th-percentile item).

    Parameters
    ----------
    q : float
        Percentile in [0, 100] of :func:`item_locations`, computed with numpy's default (linear)
        interpolation, R's ``quantile(type = 7)``.

    Examples
    --------
    >>> import pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"b": [-2.0, -1.0, 0.0, 1.0, 2.0]}), "rasch")
    >>> PercentileInitializer(25).initialize(bank, 2, None)
    array([-1., -1.])
    """

    q: float = 25.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "q", check_number(self.q, "q", low=0.0, high=100.0))

    def initialize(self, bank: ItemBank, n: int, rng: np.random.Generator | None) -> np.ndarray:
        """Starting abilities (the :class:`~irtbridge.cat.protocols.Initializer` contract).

        Parameters
        ----------
        bank : ItemBank
            The items (their locations).
        n : int
            Examinees.
        rng : numpy.random.Generator, optional
            Not used.

        Returns
        -------
        ndarray
            Shape ``(n,)``: The ``q``-th percentile of the item locations for every examinee.
        """
        return np.full(n, float(np.percentile(item_locations(bank), self.q)))
