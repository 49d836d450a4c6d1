"""Stoppers: when an examinee's test ends.

A stopper is a small frozen object with ``stop(n_administered, se) -> bool array`` (True = this examinee
is done), ``reason(n_administered, se) -> array of str`` for the examinees it stops, and ``max_items``
(the longest test it allows, or None).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irtbridge._validation import check_int, check_number
from irtbridge.exceptions import ValidationError

__all__ = ["FixedLengthStopper", "StandardErrorStopper"]


@dataclass(frozen=True)
class FixedLengthStopper:
    """Stop after ``n_items`` items (catR ``stop = list(rule = "length", thr = n_items)``).

    Parameters
    ----------
    n_items : int, default 20
        Items of each test.

    Examples
    --------
    >>> import numpy as np
    >>> FixedLengthStopper(3).stop(np.array([2, 3]), np.array([0.1, 0.9]))
    array([False,  True])
    """

    n_items: int = 20

    def __post_init__(self) -> None:
        object.__setattr__(self, "n_items", check_int(self.n_items, "n_items", low=1))

    @property
    def max_items(self) -> int:
        """The test length, ``n_items``."""
        return self.n_items

    def stop(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """True where an examinee has had ``n_items`` items.

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Not used.

        Returns
        -------
        ndarray of bool
            One per examinee.
        """
        return np.asarray(n_administered) >= self.n_items

    def reason(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """``"length"`` for every examinee.

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Not used.

        Returns
        -------
        ndarray of object
            Shaped like ``n_administered``.
        """
        return np.full(np.shape(n_administered), "length", dtype=object)


@dataclass(frozen=True)
class StandardErrorStopper:
    """Stop once the standard error falls below ``max_se`` (variable length), with a cap.

    Parameters
    ----------
    max_se : float
        The test ends when ``se < max_se`` (strictly below, as the MLC paper states its rule; catR's
        ``rule = "precision"`` stops at ``se <= thr``). The MLC paper derives it from a reliability:
        ``max_se = sigma * sqrt(1 - r)`` (Eq. 8), see :meth:`from_reliability`.
    min_items : int
        Never stop before this many items.
    max_items : int, optional
        Stop after this many items whatever the standard error (reason ``"max_items"``), so a run that
        never reaches the precision ends; None: only the bank limits the length.

    Examples
    --------
    >>> import numpy as np
    >>> s = StandardErrorStopper(0.3, min_items=2, max_items=10)
    >>> s.stop(np.array([1, 2, 10]), np.array([0.1, 0.29, 0.5]))
    array([False,  True,  True])
    >>> s.reason(np.array([2, 10]), np.array([0.29, 0.5])).tolist()
    ['se', 'max_items']
    """

    max_se: float = 0.3
    min_items: int = 1
    max_items: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_se", check_number(self.max_se, "max_se", low=0.0, low_open=True))
        object.__setattr__(self, "min_items", check_int(self.min_items, "min_items", low=0))
        if self.max_items is not None:
            cap = check_int(self.max_items, "max_items", low=1)
            if cap < self.min_items:
                raise ValidationError(f"max_items ({cap}) must be >= min_items ({self.min_items})")
            object.__setattr__(self, "max_items", cap)

    @classmethod
    def from_reliability(cls, reliability: float = 0.98, sigma: float = 1.0, **kwargs) -> "StandardErrorStopper":
        """The stopper for a target reliability: ``max_se = sigma * sqrt(1 - reliability)`` (the MLC paper, Eq. 8).

        Parameters
        ----------
        reliability : float, default 0.98
            The target reliability ``r``.
        sigma : float, default 1.0
            The ability scale's standard deviation.
        **kwargs
            The other settings (``min_items``, ``max_items``).

        Returns
        -------
        StandardErrorStopper
            The stopper.

        Examples
        --------
        >>> round(StandardErrorStopper.from_reliability(0.98).max_se, 4)
        0.1414
        """
        r = check_number(reliability, "reliability", low=0.0, high=1.0, high_open=True)
        sigma = check_number(sigma, "sigma", low=0.0, low_open=True)
        return cls(max_se=sigma * np.sqrt(1.0 - r), **kwargs)

    def _precise(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore"):
            return (np.asarray(n_administered) >= self.min_items) & (np.asarray(se, dtype=float) < self.max_se)

    def _capped(self, n_administered: np.ndarray) -> np.ndarray:
        if self.max_items is None:
            return np.zeros(np.shape(n_administered), dtype=bool)
        return np.asarray(n_administered) >= self.max_items

    def stop(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """True where the standard error is below ``max_se`` (after ``min_items``) or the cap is reached.

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Each examinee's current standard error.

        Returns
        -------
        ndarray of bool
            One per examinee.
        """
        return self._precise(n_administered, se) | self._capped(n_administered)

    def reason(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """Why each examinee stopped: ``"se"``, ``"max_items"`` or ``""`` (still testing).

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Each examinee's current standard error.

        Returns
        -------
        ndarray of object
            Shaped like ``n_administered``.
        """
        out = np.full(np.shape(n_administered), "", dtype=object)
        out[self._capped(n_administered)] = "max_items"
        out[self._precise(n_administered, se)] = "se"
        return out
