"""Unit tests of irtbridge._ties: the one tie rule for discrete choices on floats.

Every expected value is worked out by hand from the rule (values within ``1e-9 * max(1, scale)`` tie,
the earlier position wins, NaN ties with nothing and sorts last); where plain numpy gives a different
answer the test says so, so each case shows what the rule changes.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from irtbridge._ties import (
    TIE_TOLERANCE,
    snap,
    stable_argsort,
    tie_argmax,
    tie_argmin,
    tie_floor,
    tie_greater,
    tie_rank,
    tie_tolerance,
)

NAN = float("nan")
INF = float("inf")
POINT3_UP = 0.1 + 0.2  # 0.30000000000000004, one ulp above 0.3


def test_point_one_plus_point_two_is_above_point_three():
    # the premise of half the cases below
    assert POINT3_UP > 0.3 and POINT3_UP - 0.3 < 1e-15


# --------------------------------------------------------------------------------------------------
# tie_tolerance
# --------------------------------------------------------------------------------------------------


def test_tolerance_is_absolute_up_to_one_and_relative_above():
    assert TIE_TOLERANCE == 1e-9
    assert tie_tolerance([0.2, -0.5]).tolist() == [1e-9]
    assert tie_tolerance([1500.0, -2000.0]).tolist() == [pytest.approx(2e-6, rel=1e-15)]
    # non-finite values do not set the scale
    assert tie_tolerance([NAN, INF, 3.0]).tolist() == [pytest.approx(3e-9, rel=1e-15)]
    assert float(tie_tolerance(scale=0.5)) == 1e-9
    assert float(tie_tolerance(scale=1e4)) == pytest.approx(1e-5, rel=1e-15)


def test_tolerance_is_per_row_and_broadcasts():
    tol = tie_tolerance([[1.0, 2.0], [100.0, -300.0]])
    assert tol.shape == (2, 1)
    assert tol[:, 0].tolist() == [pytest.approx(2e-9, rel=1e-15), pytest.approx(3e-7, rel=1e-15)]
    assert tie_tolerance(np.empty((3, 0))).shape == (3, 1)


# --------------------------------------------------------------------------------------------------
# snap
# --------------------------------------------------------------------------------------------------


def test_snap_replaces_a_tie_group_by_its_smallest_value():
    out = snap([0.3, POINT3_UP, 0.2, 0.3 + 1e-6])
    assert out.tolist() == [0.3, 0.3, 0.2, 0.3 + 1e-6]  # 1e-6 apart is no tie
    assert snap([-0.3, -POINT3_UP]).tolist() == [-POINT3_UP, -POINT3_UP]


def test_snap_boundary_of_the_tolerance():
    # 0.9e-9 apart ties, 1.1e-9 apart does not (scale 1: absolute 1e-9)
    assert snap([0.5 + 0.9e-9, 0.5]).tolist() == [0.5, 0.5]
    assert snap([0.5 + 1.1e-9, 0.5]).tolist() == [0.5 + 1.1e-9, 0.5]


def test_snap_chains_values_closer_than_the_tolerance():
    # 0 and 1.2e-9 are farther apart than 1e-9 but each is within 1e-9 of 0.6e-9: one group (single linkage)
    assert snap([1.2e-9, 0.0, 0.6e-9]).tolist() == [0.0, 0.0, 0.0]


def test_snap_scale_is_relative_above_one():
    # at 1000 the tolerance is 1e-6, so 1e-7 apart ties; on an explicit scale of 1 it does not
    assert snap([1000.0 + 1e-7, 1000.0]).tolist() == [1000.0, 1000.0]
    assert snap([1000.0 + 1e-7, 1000.0], scale=1.0).tolist() == [1000.0 + 1e-7, 1000.0]


def test_snap_nan_ties_with_nothing_and_infinities_stay():
    out = snap([NAN, 0.3, POINT3_UP, NAN])
    assert np.isnan(out[[0, 3]]).all()
    assert out[1:3].tolist() == [0.3, 0.3]
    assert snap([INF, 1.0, INF, -INF, -INF]).tolist() == [INF, 1.0, INF, -INF, -INF]


def test_snap_works_row_by_row_with_each_row_its_own_scale():
    rows = np.array([[1000.0 + 1e-7, 1000.0, 5.0], [0.5 + 1e-7, 0.5, POINT3_UP]])
    out = snap(rows)
    assert out[0].tolist() == [1000.0, 1000.0, 5.0]
    assert out[1].tolist() == [0.5 + 1e-7, 0.5, POINT3_UP]  # scale 1: 1e-7 apart is no tie
    np.testing.assert_array_equal(out, np.stack([snap(r) for r in rows]))


def test_snap_of_short_input_is_a_copy():
    x = np.array([0.3])
    out = snap(x)
    assert out.tolist() == [0.3] and out is not x
    assert float(snap(2.5)) == 2.5


# --------------------------------------------------------------------------------------------------
# stable_argsort
# --------------------------------------------------------------------------------------------------


def test_stable_argsort_keeps_position_order_within_ties():
    x = [POINT3_UP, 0.3, 0.2]
    assert np.argsort(x, kind="stable").tolist() == [2, 1, 0]  # plain numpy: the last bit decides
    assert stable_argsort(x).tolist() == [2, 0, 1]


def test_stable_argsort_descending_keeps_position_order_within_ties():
    x = [0.3, POINT3_UP, 0.5]
    assert np.argsort(-np.asarray(x), kind="stable").tolist() == [2, 1, 0]
    assert stable_argsort(x, descending=True).tolist() == [2, 0, 1]


def test_stable_argsort_puts_nan_last_both_ways():
    x = [NAN, 1.0, 2.0, NAN, 1.0 + 1e-12]
    assert stable_argsort(x).tolist() == [1, 4, 2, 0, 3]
    assert stable_argsort(x, descending=True).tolist() == [2, 1, 4, 0, 3]


def test_stable_argsort_rows_and_scale():
    rows = [[POINT3_UP, 0.3, 0.1], [2.0, 1.0, 3.0]]
    assert stable_argsort(rows).tolist() == [[2, 0, 1], [1, 0, 2]]
    # an explicit large scale widens the tolerance: 1e-7 apart ties on a scale of 1000
    assert stable_argsort([0.5 + 1e-7, 0.5]).tolist() == [1, 0]
    assert stable_argsort([0.5 + 1e-7, 0.5], scale=1000.0).tolist() == [0, 1]


# --------------------------------------------------------------------------------------------------
# tie_argmin / tie_argmax
# --------------------------------------------------------------------------------------------------


def test_tie_argmin_and_argmax_take_the_first_value_within_the_tolerance():
    assert int(np.argmin([0.5, POINT3_UP, 0.3])) == 2
    assert int(tie_argmin([0.5, POINT3_UP, 0.3])) == 1
    assert int(np.argmax([0.2, 0.3, POINT3_UP])) == 2
    assert int(tie_argmax([0.2, 0.3, POINT3_UP])) == 1
    # a value beyond the tolerance still wins
    assert int(tie_argmax([0.3, 0.3 + 2e-9])) == 1
    assert int(tie_argmin([0.3 + 2e-9, 0.3])) == 1


def test_tie_argmin_does_not_chain():
    # 0.6e-9 is within 1e-9 of the minimum 0, 1.2e-9 is not: the first value within reach of 0 is position 1
    assert int(tie_argmin([1.2e-9, 0.6e-9, 0.0])) == 1
    assert int(tie_argmax([-1.2e-9, -0.6e-9, 0.0])) == 1


def test_tie_argmin_scale():
    assert int(tie_argmin([1000.0 + 1e-7, 1000.0])) == 0  # tolerance 1e-6 at 1000
    assert int(tie_argmin([1000.0 + 1e-7, 1000.0], scale=1.0)) == 1


def test_tie_argmin_and_argmax_skip_nan_and_handle_infinities():
    assert int(tie_argmin([NAN, 2.0, 1.0])) == 2
    assert int(tie_argmax([NAN, 2.0, 1.0])) == 1
    assert int(tie_argmin([NAN, NAN])) == 0 and int(tie_argmax([NAN, NAN])) == 0
    # -inf marks unavailable items in the CAT selectors
    assert int(tie_argmax([-INF, 1.0, 1.0])) == 1
    assert int(tie_argmax([-INF, -INF])) == 0
    assert int(tie_argmin([INF, 3.0, INF])) == 1


def test_tie_argmin_and_argmax_rows():
    rows = np.array([[2.0, 1.0], [1.0, 1.0 + 1e-15], [1.0 + 1e-15, 1.0], [5.0, NAN]])
    assert tie_argmin(rows).tolist() == [1, 0, 0, 0]
    assert tie_argmax(rows).tolist() == [0, 0, 0, 0]
    # each row on its own scale: 1e-7 apart ties at 1000 but not at 0.5
    rows = np.array([[1000.0, 1000.0 + 1e-7], [0.5, 0.5 + 1e-7]])
    assert tie_argmax(rows).tolist() == [0, 1]
    # a per-row scale broadcasts
    assert tie_argmax(rows, scale=np.array([[1.0], [1000.0]])).tolist() == [1, 0]


def test_tie_argmin_needs_a_value():
    with pytest.raises(ValueError, match="at least one value"):
        tie_argmin([])
    with pytest.raises(ValueError, match="at least one value"):
        tie_argmax(3.0)


# --------------------------------------------------------------------------------------------------
# tie_rank
# --------------------------------------------------------------------------------------------------


def test_tie_rank_shares_ranks_within_the_tolerance():
    assert tie_rank([0.3, POINT3_UP, 0.9]).tolist() == [1.5, 1.5, 3.0]
    assert tie_rank([0.3, POINT3_UP, 0.9], descending=True).tolist() == [2.5, 2.5, 1.0]
    assert tie_rank([1500.0, 1500.0 + 1e-10, 1400.0], method="min", descending=True).tolist() == [1.0, 1.0, 3.0]
    assert tie_rank([1500.0, 1500.0 + 1e-10, 1400.0], method="max", descending=True).tolist() == [2.0, 2.0, 3.0]
    assert tie_rank([0.7, 0.3, POINT3_UP, 0.7], method="dense").tolist() == [2.0, 1.0, 1.0, 2.0]


def test_tie_rank_ordinal_breaks_ties_by_position():
    assert tie_rank([POINT3_UP, 0.3], method="ordinal").tolist() == [1.0, 2.0]
    assert tie_rank([0.3, POINT3_UP], method="ordinal", descending=True).tolist() == [1.0, 2.0]


def test_tie_rank_rows():
    rows = [[0.3, POINT3_UP, 0.1], [3.0, 2.0, 1.0]]
    assert tie_rank(rows).tolist() == [[2.5, 2.5, 1.0], [3.0, 2.0, 1.0]]
    assert tie_rank(rows, descending=True).tolist() == [[1.5, 1.5, 3.0], [1.0, 2.0, 3.0]]


# --------------------------------------------------------------------------------------------------
# tie_greater
# --------------------------------------------------------------------------------------------------


def test_tie_greater_needs_more_than_the_tolerance():
    assert tie_greater([0.5, 0.5 + 1e-15, 0.5 + 2e-9, 0.6], 0.5).tolist() == [False, False, True, True]
    # exactly the tolerance apart in exact arithmetic, a few ulps above it in floating point
    assert 0.4 - 0.3 > 0.1
    assert not bool(tie_greater(0.4 - 0.3, 0.1))
    # it is a strict comparison: the smaller side is never greater
    assert tie_greater([0.5 - 1e-15, 0.4], 0.5).tolist() == [False, False]


def test_tie_greater_scale():
    # default scale max(|a|, |b|): 1e-4 at 1e6 is within 1e-3
    assert not bool(tie_greater(1e6 + 1e-4, 1e6))
    assert bool(tie_greater(1e6 + 1e-2, 1e6))
    assert bool(tie_greater(1e6 + 1e-4, 1e6, scale=1.0))
    assert not bool(tie_greater(0.5 + 1e-7, 0.5, scale=1000.0))


def test_tie_greater_nan_is_never_greater_and_broadcasts():
    assert tie_greater([NAN, 1.0], [0.0, NAN]).tolist() == [False, False]
    out = tie_greater(np.array([[0.3], [0.31]]), np.array([POINT3_UP, 0.2]))
    assert out.tolist() == [[False, True], [True, True]]
    assert bool(tie_greater(INF, 1.0)) and not bool(tie_greater(1.0, INF))


# --------------------------------------------------------------------------------------------------
# tie_floor
# --------------------------------------------------------------------------------------------------


def test_tie_floor_rounds_up_values_just_below_an_integer():
    x = [2.9999999999999996, 2.5, -1e-15, 3.0 - 1e-6, 0.3 / 0.1, -2.0000000000000004]
    assert math.floor(0.3 / 0.1) == 2  # plain floor
    assert tie_floor(x).tolist() == [3.0, 2.0, 0.0, 2.0, 3.0, -2.0]


def test_tie_floor_scale_and_nan():
    assert tie_floor([1e7 - 1e-4]).tolist() == [1e7]  # relative tolerance 1e-2 at 1e7
    assert tie_floor([1e7 - 1e-4], scale=1.0).tolist() == [1e7 - 1.0]
    out = tie_floor([NAN, 4.0])
    assert math.isnan(out[0]) and out[1] == 4.0
    assert tie_floor([[0.3 / 0.1, 1.5], [-0.5, 7.0]]).tolist() == [[3.0, 1.0], [-1.0, 7.0]]
