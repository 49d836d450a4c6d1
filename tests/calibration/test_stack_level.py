"""Warnings of the calibration front doors point at the user's line (``find_stack_level``, issue 41 item 2).

Each front door is called here with options that make it warn (one EM cycle: a ConvergenceWarning; constant
items dropped: a DataWarning); the warning's file and line must be this file's call, whatever the depth of
the calls inside irtbridge.
"""

from __future__ import annotations


import numpy as np
import pandas as pd
import pytest
from scipy import sparse

import irtbridge
from irtbridge.em.core import ResponseData
from irtbridge.exceptions import ConvergenceWarning, DataWarning, find_stack_level
from irtbridge.example_data import response_dataset
from tests._stack import assert_points_here


def test_find_stack_level_outside_the_package_is_one():
    assert find_stack_level() == 1


def _with_constant() -> pd.DataFrame:
    x = response_dataset("LSAT7").iloc[:300].copy()
    x["always"] = 1.0
    return x


@pytest.mark.slow
def test_native_front_door_warnings_point_at_the_users_line():
    x = response_dataset("LSAT7")
    assert_points_here(lambda: irtbridge.calibrate(x, "2PL", engine="native", se=False,
                                                   technical={"NCYCLES": 1}), ConvergenceWarning)
    assert_points_here(lambda: irtbridge.calibrate(x, "4PL", engine="native", se=False,
                                                   technical={"NCYCLES": 1}), ConvergenceWarning)
    assert_points_here(lambda: irtbridge.calibrate(_with_constant(), "2PL", engine="native", se=False,
                                                   drop_constant=True), DataWarning)
    v = _with_constant().to_numpy()
    cells = ResponseData(sparse.csr_matrix(v == 1, dtype=float), sparse.csr_matrix(~np.isnan(v), dtype=float),
                         tuple(_with_constant().columns), pd.RangeIndex(len(v)))
    assert_points_here(lambda: irtbridge.calibrate(cells, "2PL", engine="native", se=False, drop_constant=True),
                       DataWarning)


@pytest.mark.r
def test_mirt_front_door_warnings_point_at_the_users_line():
    x = response_dataset("LSAT7")
    one = {"technical": {"NCYCLES": 1}}
    assert_points_here(lambda: irtbridge.calibrate(x, "2PL", engine="mirt", se=False, **one), ConvergenceWarning)
    groups = np.tile(["a", "b"], len(x) // 2)
    assert_points_here(lambda: irtbridge.calibrate_groups(x.iloc[:len(groups)], groups, "2PL", se=False, **one),
                       ConvergenceWarning)
    assert_points_here(lambda: irtbridge.calibrate(_with_constant(), "2PL", engine="mirt", se=False,
                                                   drop_constant=True), DataWarning)


def test_the_flagged_items_warning_points_at_the_users_line():
    from irtbridge.calibration.results.flags import IdentificationWarning

    x = response_dataset("LSAT7").copy()
    x["easy"] = 1.0
    x.iloc[0, -1] = 0.0  # one wrong answer in 1000: b far below -6, flagged
    assert_points_here(lambda: irtbridge.calibrate(x, "2PL", engine="native", se=False), IdentificationWarning)
