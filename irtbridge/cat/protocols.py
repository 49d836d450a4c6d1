"""The contract of the four CAT roles: every method :func:`~irtbridge.cat.simulate_cat` calls.

A component is anything with these methods (structural typing, no base class to inherit), so a
user-written selector or stopper plugs into the simulator as the built-in ones do. The protocols are
``runtime_checkable``: ``isinstance(obj, Selector)`` checks that the methods exist (not their
signatures), which is what the simulator does before it starts.

Examples
--------
>>> import numpy as np
>>> from irtbridge.cat import MaxInfoSelector, FixedLengthStopper
>>> isinstance(MaxInfoSelector(), Selector), isinstance(FixedLengthStopper(5), Stopper)
(True, True)
>>> class FirstFree:
...     def select(self, bank, theta, unavailable, rng=None):
...         return np.where(unavailable.all(axis=1), -1, np.argmin(unavailable, axis=1))
>>> isinstance(FirstFree(), Selector)
True
"""

from __future__ import annotations

from typing import Any, Optional, Protocol, Tuple, runtime_checkable

import numpy as np

from irtbridge.irt.bank import ItemBank

__all__ = ["Initializer", "Selector", "Estimator", "Stopper", "ROLES"]


@runtime_checkable
class Initializer(Protocol):
    """Gives every examinee a starting ability."""

    def initialize(self, bank: ItemBank, n: int, rng: np.random.Generator) -> np.ndarray:
        """Starting abilities, shape ``(n,)``.

        Parameters
        ----------
        bank : ItemBank
            The items.
        n : int
            Examinees.
        rng : numpy.random.Generator
            For random starts.

        Returns
        -------
        ndarray
            Shape ``(n,)``.
        """
        ...


@runtime_checkable
class Selector(Protocol):
    """Picks the next item of each examinee still testing."""

    def select(
        self, bank: ItemBank, theta: np.ndarray, unavailable: np.ndarray, rng: Optional[np.random.Generator]
    ) -> np.ndarray:
        """Bank positions, one per row of ``theta``; ``-1`` where every item is ``unavailable``.

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The current abilities of the examinees still testing.
        unavailable : ndarray of bool
            Examinees x items, True where an item was given already.
        rng : numpy.random.Generator or None
            For random choices.

        Returns
        -------
        ndarray of int
            See above.
        """
        ...


@runtime_checkable
class Estimator(Protocol):
    """Keeps a running state per examinee and turns each new answer into (theta, se)."""

    def begin(self, bank: ItemBank, theta: np.ndarray, rng: Optional[np.random.Generator]) -> Any:
        """A fresh state for ``len(theta)`` examinees starting at ``theta``.

        Parameters
        ----------
        bank : ItemBank
            The items.
        theta : ndarray
            The starting abilities.
        rng : numpy.random.Generator or None
            For random moves.

        Returns
        -------
        object
            The state.
        """
        ...

    def update(
        self, state: Any, rows: np.ndarray, items: np.ndarray, values: np.ndarray
    ) -> Tuple[np.ndarray, np.ndarray]:
        """Examinees ``rows`` answered ``items`` with ``values``: their new ``(theta, se)``.

        Parameters
        ----------
        state : object
            What :meth:`begin` returned.
        rows : ndarray of int
            The examinees.
        items : ndarray of int
            The item each answered.
        values : ndarray
            Their responses.

        Returns
        -------
        theta, se : ndarray
            One per row.
        """
        ...


@runtime_checkable
class Stopper(Protocol):
    """Decides who is done, says why, and caps the test length."""

    @property
    def max_items(self) -> Optional[int]:
        """The longest test this stopper allows (``None``: the bank size)."""
        ...

    def stop(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """Boolean array: True where the examinee's test is over.

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Each examinee's current standard error.

        Returns
        -------
        ndarray of bool
            See above.
        """
        ...

    def reason(self, n_administered: np.ndarray, se: np.ndarray) -> np.ndarray:
        """Object array of short labels (``"length"``, ``"se"``) for the stopped examinees.

        Parameters
        ----------
        n_administered : ndarray of int
            Items given to each examinee.
        se : ndarray
            Each examinee's current standard error.

        Returns
        -------
        ndarray of object
            See above.
        """
        ...


#: role name -> (protocol, the methods the simulator calls), in the order the simulator uses them
ROLES = {
    "initializer": (Initializer, ("initialize",)),
    "selector": (Selector, ("select",)),
    "estimator": (Estimator, ("begin", "update")),
    "stopper": (Stopper, ("max_items", "stop", "reason")),
}
