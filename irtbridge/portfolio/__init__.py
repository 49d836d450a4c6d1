"""Algorithm-portfolio evaluation with continuous and polytomous IRT, as in airt (Kandanaarachchi & Smith-Miles 2020).

Performance matrices have datasets as rows and algorithms as columns; algorithms are the items and
datasets the respondents, so a dataset's latent trait is its easiness. Calibration runs in R (EstCRM for
the continuous response model, mirt for the polytomous one); everything downstream is native.

Start with :func:`evaluate_portfolio` (:mod:`~irtbridge.portfolio.analysis`); the latent trait analysis
and the algorithm characteristics are in :mod:`~irtbridge.portfolio.latent`, the continuous response
model in :mod:`~irtbridge.portfolio.crm`, the smoother in :mod:`~irtbridge.portfolio.spline`, and
:mod:`irtbridge.portfolio.plots` draws the figures.
"""

from __future__ import annotations

from irtbridge._moved import moved_names
from irtbridge.portfolio.crm import (
    CRMCalibration,
    crm_abilities,
    crm_density,
    crm_predict,
    crm_z,
    fit_crm,
    rescale_performance,
)
from irtbridge.portfolio.analysis import PortfolioEvaluation, airt_performance, bin_performance, evaluate_portfolio
from irtbridge.portfolio.latent import LatentTraitAnalysis, algorithm_characteristics, latent_trait_analysis
from irtbridge.portfolio.spline import PenalizedSpline, penalized_spline

__all__ = [
    "evaluate_portfolio",
    "PortfolioEvaluation",
    "latent_trait_analysis",
    "LatentTraitAnalysis",
    "algorithm_characteristics",
    "bin_performance",
    "airt_performance",
    "fit_crm",
    "CRMCalibration",
    "crm_z",
    "crm_abilities",
    "crm_density",
    "crm_predict",
    "rescale_performance",
    "penalized_spline",
    "PenalizedSpline",
]

# one name, one meaning: airt's example performance matrices are not a "dataset" of the benchmark's kind
# (irtbridge.decodirt.classification_data) nor example response data (irtbridge.example_data)
__getattr__ = moved_names(__name__, {"portfolio_dataset": "irtbridge.portfolio:airt_performance"})
