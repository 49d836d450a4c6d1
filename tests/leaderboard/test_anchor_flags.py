"""select_anchors never chooses an item its calibration flags (irtbridge.calibration.results.flags).

The calibration is the native 2PL of the runaway matrix (tests/_runaway.py), whose runaway slopes are the
most discriminating items: the stratified method, which takes each stratum's largest slope, picks them
from the same item table given as a plain item bank (the control: the test can fail).
"""

from __future__ import annotations

import warnings

import pytest

import irtbridge
from irtbridge.calibration.results.flags import IdentificationWarning
from irtbridge.exceptions import ValidationError
from irtbridge.irt import as_item_bank
from irtbridge.leaderboard import ANCHOR_METHODS, select_anchors
from tests._runaway import runaway_matrix


@pytest.fixture(scope="module")
def fit():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IdentificationWarning)
        return irtbridge.calibrate(runaway_matrix(), "2PL", engine="native", se=False)


def test_flagged_items_are_never_anchors(fit):
    flagged = set(fit.flagged_items)
    assert flagged
    bank = as_item_bank(fit.items[["a", "b"]], "2PL")
    assert set(select_anchors(bank, 20, "stratified")) & flagged  # without the flags they would be chosen
    for method in ANCHOR_METHODS:
        for k in (5, 20, len(fit.items) - len(flagged)):
            chosen = select_anchors(fit, k, method, responses=runaway_matrix() if method == "cluster" else None)
            assert len(chosen) == k and not set(chosen) & flagged, (method, k)


def test_more_anchors_than_identified_items_is_a_one_line_error(fit):
    k = len(fit.items) - len(fit.flagged_items) + 1
    with pytest.raises(ValidationError, match=f"k = {k} anchors asked of a calibration with {k - 1} identified items"):
        select_anchors(fit, k)
