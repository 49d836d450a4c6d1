"""The CLI's copies of the library's choice tuples (kept off the CLI's start) equal the library's own, so
an argparse ``choices=`` never refuses what the library takes or lets through what it refuses."""

from __future__ import annotations

from irtbridge.decodirt.per_dataset import SCORES
from irtbridge.calibration.results.group_result import P_ADJUST
from irtbridge.calibration.inputs.itemtypes import METHODS
from irtbridge.calibration.inputs.engine_table import ENGINES, SCORING_METHODS
from irtbridge.cli import _common, anchors, benchmark
from irtbridge.leaderboard.anchors import ANCHOR_METHODS


def test_cli_choices_equal_the_library():
    assert _common.ENGINES == tuple(ENGINES)
    assert _common.ESTIMATION_METHODS == METHODS
    assert _common.SCORING_METHODS == {k: tuple(v) for k, v in SCORING_METHODS.items()}
    assert _common.P_ADJUST == P_ADJUST
    assert anchors.ANCHOR_METHODS == ANCHOR_METHODS
    assert benchmark.SCORES == SCORES


def test_choices_fold_case(capsys):
    from irtbridge.cli import build_parser

    args = build_parser().parse_args(["abilities", __file__, "--method", "map", "--engine", "LTM"])
    assert (args.method, args.engine) == ("MAP", "ltm")
