"""The report figures' common look: the colours and the Axes to draw on, shared by the evaluation report's
figures (:mod:`irtbridge.report.plots`) and the leaderboard report's (:mod:`irtbridge.report.leaderboard_plots`)."""

from __future__ import annotations

from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from irtbridge._plotting import single_axes

ARTIFICIAL_COLOR = "#9aa3ad"
CLASSIFIER_COLOR = "#2b6cb0"
ACCENT = "#c05621"


def _figure(width: float, height: float):
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)
    return fig


def report_axes(ax: Any, width: float, height: float):
    """``ax`` checked, or the Axes of a new pyplot-free figure (the report draws from worker threads)."""
    return _figure(width, height).add_subplot() if ax is None else single_axes(ax)
