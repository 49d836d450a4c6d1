"""Scoring beyond ``abilities`` on a mirt :class:`~irtbridge.calibration.Calibration`: the covariance matrix of
each respondent's abilities (mirt's ``return.acov``), mixed into the result class.

The checks and the ``fscores`` call are :mod:`irtbridge.calibration.analysis.fscores`'s.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from irtbridge._catalogue import MIRT_SCORING
from irtbridge._validation import check_choice
from irtbridge.calibration.analysis.fscores import check_scoring_options, mirt_scores

__all__ = ["ScoringMixin"]


class ScoringMixin:
    """Scoring beyond :meth:`~irtbridge.calibration.Calibration.abilities` (mirt fits)."""

    if TYPE_CHECKING:  # what the methods use of the fit class they are mixed into (Calibration)
        def _live_mirt(self, what: str) -> Any: ...

        def _score_values(self, responses: Any, options: dict[str, Any]) -> np.ndarray | None: ...

    def ability_covariances(self, method: str = "EAP", responses: Any = None, *, full_scores: bool = True,
                            mean: Any = None, cov: Any = None, QMC: bool = False,
                            use_dentype_estimate: bool = False) -> np.ndarray:
        """The covariance matrix of each respondent's ability estimates (mirt's ``return.acov``).

        Parameters
        ----------
        method : str, default "EAP"
        responses : DataFrame or 2-D array, optional
        full_scores : bool, default True
        mean, cov : array-like, optional
        QMC, use_dentype_estimate : bool, default False
            As for :meth:`~irtbridge.calibration.Calibration.abilities` (mirt fits only).

        Returns
        -------
        ndarray of shape (n, k, k)
            One k x k matrix per row of the matching :meth:`abilities` table (respondents, or the
            response patterns with ``full_scores=False``); k is the number of factors. For one factor
            ``out[:, 0, 0]`` is the squared standard error.

        Notes
        -----
        R equivalent: ``fscores(fit, method, return.acov = TRUE, full.scores = full_scores, mean = , cov = )``.

        Examples
        --------
        >>> import irtbridge
        >>> from irtbridge.example_data import response_dataset
        >>> fit = irtbridge.calibrate(response_dataset("LSAT7"), "2PL", se=False)   # doctest: +R
        >>> fit.ability_covariances(full_scores=False)[:2, 0, 0].round(4)
        array([0.4799, 0.4539])
        """
        method = check_choice(method, "method", MIRT_SCORING, ignore_case=True)
        options = check_scoring_options(self, full_scores=full_scores, mean=mean, cov=cov, QMC=QMC,
                                        use_dentype_estimate=use_dentype_estimate)
        model = self._live_mirt("ability_covariances")
        values = self._score_values(responses, options)
        return mirt_scores(self, model, method, values, options, acov=True)
