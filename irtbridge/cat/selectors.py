"""Selectors: which item each examinee gets next.

A selector is a small frozen object with one method,
``select(bank, theta, unavailable, rng) -> numpy.ndarray`` of item positions, one per examinee (row of
``unavailable``), ``-1`` where no item is left. ``unavailable`` is a boolean ``(n, n_items)`` mask of the
items an examinee may not get (already administered, or without a response in a post-hoc simulation).
Selectors are vectorized over examinees.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from irtbridge.irt import fast
from irtbridge._ties import stable_argsort, tie_argmax
from irtbridge._validation import check_int
from irtbridge.cat.initializers import item_locations
from irtbridge.exceptions import ValidationError
from irtbridge.irt import ItemBank

__all__ = ["MaxInfoSelector", "UrrySelector", "RandomSelector", "RandomesqueSelector", "information_matrix"]


# Rows per call of the kernel: 64 x n_items temporaries stay in the CPU cache, which makes the kernel's
# dozen elementwise passes about twice as fast as one call on the whole (n x n_items) matrix.
_BLOCK = 64


def information_matrix(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    """Fisher information of every item at every ``theta``, shape ``(len(theta), n_items)``.

    The kernel's :func:`irtbridge.irt.item_information` without its input checks, evaluated in blocks of
    rows and once per distinct ability: in the first steps of a CAT that starts everyone at the same
    point, thousands of examinees share a handful of abilities (at most ``2**t`` response patterns after
    ``t`` items).

    Parameters
    ----------
    bank : ItemBank
        The items.
    theta : ndarray
        Abilities.

    Returns
    -------
    ndarray
        ``(len(theta), n_items)``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [2.0], "b": [0.0]}), "2PL")
    >>> information_matrix(bank, np.array([0.0, 0.0]))
    array([[1.],
           [1.]])
    """
    theta = np.asarray(theta, dtype=float)
    unique, inverse = np.unique(theta, return_inverse=True)
    if unique.size * 2 <= theta.size:
        return _blocked_information(bank, unique)[inverse]
    return _blocked_information(bank, theta)


def _blocked_information(bank: ItemBank, theta: np.ndarray) -> np.ndarray:
    out = np.empty((theta.size, bank.n_items))
    for start in range(0, theta.size, _BLOCK):
        out[start : start + _BLOCK] = fast.information(bank, theta[start : start + _BLOCK])
    return out


def _check_shapes(bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    theta = np.atleast_1d(np.asarray(theta, dtype=float))
    unavailable = np.atleast_2d(np.asarray(unavailable, dtype=bool))
    if unavailable.shape != (theta.size, bank.n_items):
        raise ValidationError(
            f"unavailable must have shape (n_examinees, n_items) = ({theta.size}, {bank.n_items}), "
            f"got {unavailable.shape}"
        )
    return theta, unavailable


def _best(score: np.ndarray, unavailable: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Row-wise argmax of ``score`` over the available items; -1 for rows with none left.

    Scores within the tie tolerance of a row's best (:mod:`irtbridge._ties`, ``scale`` as there) tie, and
    the first of them in bank order wins, so rounding noise in the score never changes the pick.
    """
    score = np.where(unavailable, -np.inf, score)
    pos = tie_argmax(score, scale=scale)
    pos[unavailable.all(axis=1)] = -1
    return pos


@dataclass(frozen=True)
class MaxInfoSelector:
    """The available item with the largest Fisher information at the current ability.

    Notes
    -----
    catR's ``nextItem(itemBank, theta, out = administered, criterion = "MFI")`` (information from
    ``Ii``, i.e. expected information). Ties go to the first item in bank order (catR samples among them);
    informations within ``1e-9 * max(1, largest information)`` of the largest tie (``irtbridge._ties``),
    so rounding noise never decides the item.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [1.0, 2.0, 1.5], "b": [0.0, 0.1, 3.0]}), "2PL")
    >>> MaxInfoSelector().select(bank, np.array([0.0]), np.zeros((1, 3), bool), None)
    array([1])
    """

    def select(self, bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray, rng=None) -> np.ndarray:
        """The next item of each examinee (the :class:`~irtbridge.cat.protocols.Selector` contract).

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The current abilities, one per examinee still testing.
        unavailable : ndarray of bool
            Examinees x items, True where an item was given already.
        rng : numpy.random.Generator, optional
            Not used (the choice is deterministic).

        Returns
        -------
        ndarray of int
            Bank positions, one per row of ``theta``; -1 where every item is unavailable.
        """
        theta, unavailable = _check_shapes(bank, theta, unavailable)
        if np.unique(theta).size * 2 <= theta.size:
            return _best(information_matrix(bank, theta), unavailable)
        # block by block, so the information of a block is still in cache when it is masked and ranked
        pos = np.empty(theta.size, dtype=np.int64)
        for start in range(0, theta.size, _BLOCK):
            rows = slice(start, start + _BLOCK)
            pos[rows] = _best(fast.information(bank, theta[rows]), unavailable[rows])
        return pos


@dataclass(frozen=True)
class UrrySelector:
    """The available item whose location is closest to the current ability (Urry's rule).

    Notes
    -----
    catR's ``nextItem(..., criterion = "bOpt")``: ``argmin_j |b_j - theta|``. For polytomous items the
    location is the mean threshold (catR does not offer bOpt for them). Ties go to the first item in bank
    order: distances within ``1e-9 * max(1, |theta| + max_j |b_j|)`` of the smallest tie (the scale of
    the numbers the distances come from; ``irtbridge._ties``), so rounding noise in the locations or the
    ability never decides the item.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"b": [-1.0, 0.4, 2.0]}), "rasch")
    >>> UrrySelector().select(bank, np.array([0.0, 1.5]), np.array([[False, True, False]] * 2), None)
    array([0, 2])
    """

    def select(self, bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray, rng=None) -> np.ndarray:
        """The next item of each examinee (the :class:`~irtbridge.cat.protocols.Selector` contract).

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The current abilities, one per examinee still testing.
        unavailable : ndarray of bool
            Examinees x items, True where an item was given already.
        rng : numpy.random.Generator, optional
            Not used (the choice is deterministic).

        Returns
        -------
        ndarray of int
            Bank positions, one per row of ``theta``; -1 where every item is unavailable.
        """
        theta, unavailable = _check_shapes(bank, theta, unavailable)
        locations = item_locations(bank)
        distance = np.abs(locations[None, :] - theta[:, None])
        scale = np.abs(theta)[:, None] + np.max(np.abs(locations), initial=0.0)
        return _best(-distance, unavailable, scale)


@dataclass(frozen=True)
class RandomSelector:
    """An available item drawn uniformly at random.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"b": [0.0, 1.0]}), "rasch")
    >>> RandomSelector().select(bank, np.zeros(1), np.array([[True, False]]), np.random.default_rng(0))
    array([1])
    """

    def select(self, bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The next item of each examinee (the :class:`~irtbridge.cat.protocols.Selector` contract).

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The current abilities, one per examinee still testing.
        unavailable : ndarray of bool
            Examinees x items, True where an item was given already.
        rng : numpy.random.Generator
            The draws.

        Returns
        -------
        ndarray of int
            Bank positions, one per row of ``theta``; -1 where every item is unavailable.
        """
        theta, unavailable = _check_shapes(bank, theta, unavailable)
        # the draws are the choice itself, not a computed quantity: no tie tolerance
        draws = np.where(unavailable, -np.inf, rng.random(unavailable.shape))
        pos = np.argmax(draws, axis=1)
        pos[unavailable.all(axis=1)] = -1
        return pos


@dataclass(frozen=True)
class RandomesqueSelector:
    """One of the ``k`` most informative available items, drawn uniformly (Kingsbury & Zara, 1989).

    Parameters
    ----------
    k : int
        Size of the group drawn from; ``k = 1`` is :class:`MaxInfoSelector`. With fewer than ``k`` items
        left the draw is among those left.

    Notes
    -----
    catR's ``nextItem(..., criterion = "MFI", randomesque = k)``. It trades a little information for
    lower exposure of the most informative items; the simulator's ``exposure`` shows the effect.
    Informations within ``1e-9 * max(1, largest information)`` of each other tie (``irtbridge._ties``)
    and the earlier item in bank order ranks first, so the group and the draw from it (among the group
    in bank order) do not depend on rounding noise.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from irtbridge.irt import as_item_bank
    >>> bank = as_item_bank(pd.DataFrame({"a": [1.0, 2.0, 1.5], "b": [0.0, 0.1, 3.0]}), "2PL")
    >>> pick = RandomesqueSelector(2).select(bank, np.zeros(1), np.zeros((1, 3), bool), np.random.default_rng(1))
    >>> int(pick[0]) in (0, 1)
    True
    """

    k: int = 5

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", low=1))

    def select(self, bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """The next item of each examinee (the :class:`~irtbridge.cat.protocols.Selector` contract).

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The current abilities, one per examinee still testing.
        unavailable : ndarray of bool
            Examinees x items, True where an item was given already.
        rng : numpy.random.Generator
            The draw among the ``k`` best.

        Returns
        -------
        ndarray of int
            Bank positions, one per row of ``theta``; -1 where every item is unavailable.
        """
        theta, unavailable = _check_shapes(bank, theta, unavailable)
        info = np.where(unavailable, -np.inf, information_matrix(bank, theta))
        k = min(self.k, bank.n_items)
        # the k best of each row, informations within the tie tolerance in bank order, then put back in
        # bank order: the draw below maps to the same items whatever rounding noise did to the ranking
        # (argpartition's order is not even defined); unavailable items land there only when fewer than
        # k are left
        top = np.sort(stable_argsort(info, descending=True)[:, :k], axis=1)
        ok = ~np.take_along_axis(unavailable, top, axis=1)
        keys = np.where(ok, rng.random(top.shape), -1.0)
        pos = top[np.arange(top.shape[0]), np.argmax(keys, axis=1)]
        pos[~ok.any(axis=1)] = -1
        return pos
