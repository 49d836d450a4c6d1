"""irtbridge.portfolio.plots: every figure draws what it should and is returned, never shown."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from irtbridge.exceptions import DataWarning, ValidationError  # noqa: E402
from irtbridge.portfolio import airt_performance, bin_performance, crm_density, evaluate_portfolio  # noqa: E402
from irtbridge.portfolio import plots  # noqa: E402

NAMES = ["NB", "QDA", "J48", "RBF_SVM"]


@pytest.fixture(scope="module")
def small():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return airt_performance("classification_cts")[NAMES].iloc[:120]


@pytest.fixture(scope="module")
def continuous(small):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataWarning)
        return evaluate_portfolio(small, min_item=0, max_item=1)


@pytest.fixture(scope="module")
def polytomous(small):
    return evaluate_portfolio(bin_performance(small, 5, min_value=0, max_value=1), "polytomous")


def _visible_axes(drawn):
    fig = np.atleast_1d(drawn)[0].figure
    return [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]


@pytest.mark.r
def test_heatmaps_show_the_crm_density(continuous):
    axes = plots.plot_crm_heatmaps(continuous, step=0.5)
    fig = axes[0].figure
    panels = [ax for ax in _visible_axes(axes) if ax.images]
    assert list(axes) == panels
    assert [ax.get_title() for ax in panels] == NAMES
    shown = panels[0].images[0].get_array()
    grid = np.arange(-6, 6.25, 0.5)
    np.testing.assert_allclose(shown, crm_density(grid, grid, continuous.calibration)[0])
    plt.close(fig)


@pytest.mark.r
def test_tracelines_sum_to_one(polytomous):
    axes = plots.plot_tracelines(polytomous)
    fig = axes[0].figure
    ax = _visible_axes(axes)[0]
    total = sum(line.get_ydata() for line in ax.lines)
    np.testing.assert_allclose(total, 1.0, atol=1e-12)
    plt.close(fig)


@pytest.mark.r
def test_performance_plot_has_points_and_splines(continuous):
    ax = plots.plot_performance(continuous)
    fig = ax.figure
    assert len(ax.collections) == len(NAMES) and len(ax.lines) == len(NAMES)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), continuous.latent.curves["NB"])
    plt.close(fig)
    axes = plots.plot_performance(continuous, facet=True, curves=False)
    assert len(axes) == len(_visible_axes(axes)) == len(NAMES)
    plt.close(axes[0].figure)


@pytest.mark.r
def test_strength_strips_cover_the_strengths(continuous):
    top, bottom = plots.plot_strengths(continuous)
    fig = top.figure
    shown = [t.get_text() for t in top.get_yticklabels()]
    strong = [n for n in NAMES if continuous.latent.strengths[n].any()]
    assert shown == strong
    # one bar collection per algorithm shown; its bars cover one grid step per strong grid point
    step = np.diff(continuous.latent.grid)[0]
    for coll, name in zip(top.collections, strong):
        width = sum(path.get_extents().width for path in coll.get_paths())
        assert width == pytest.approx(continuous.latent.strengths[name].sum() * step)
    plt.close(fig)


@pytest.mark.r
@pytest.mark.parametrize("maker", [plots.plot_goodness, plots.plot_effectiveness, plots.plot_effectiveness_scatter])
def test_curve_figures(continuous, maker):
    axes = np.atleast_1d(maker(continuous))
    assert all(isinstance(ax, matplotlib.axes.Axes) and ax.has_data() for ax in axes)
    plt.close(axes[0].figure)


@pytest.mark.r
def test_save_figures_writes_every_figure(continuous, polytomous, tmp_path):
    a = plots.save_figures(continuous, tmp_path / "c", dpi=40)
    b = plots.save_figures(polytomous, tmp_path / "p", dpi=40)
    assert "crm_heatmaps" in a and "tracelines" in b and "tracelines" not in a
    assert all(p.stat().st_size > 0 for p in [*a.values(), *b.values()])
    assert not plt.get_fignums()  # every figure closed


@pytest.mark.r
def test_wrong_model_for_figure(continuous, polytomous):
    with pytest.raises(ValidationError, match="polytomous"):
        plots.plot_tracelines(continuous)
    with pytest.raises(ValidationError, match="continuous"):
        plots.plot_crm_heatmaps(polytomous)


def test_colours_are_stable_and_distinct():
    names = [f"a{i}" for i in range(12)]
    colours = plots.algorithm_colors(names)
    assert len(set(colours.values())) == 12 and colours == plots.algorithm_colors(names)
