"""Algorithm-portfolio evaluation with continuous and polytomous IRT, as in airt (Kandanaarachchi & Smith-Miles 2020).

Performance matrices have datasets as rows and algorithms as columns; algorithms are the items and
datasets the respondents, so a dataset's latent trait is its easiness. Calibration runs in R (EstCRM for
the continuous response model, mirt for the polytomous one); everything downstream is native.

Start with :func:`evaluate_portfolio`; :mod:`irtbridge.portfolio.plots` draws the figures.
"""

from __future__ import annotations

from irtbridge.portfolio.crm import (
    CRMCalibration,
    crm_abilities,
    crm_density,
    crm_predict,
    crm_z,
    fit_crm,
    rescale_performance,
)
from irtbridge.portfolio.evaluation import (
    LatentTraitAnalysis,
    PortfolioEvaluation,
    algorithm_characteristics,
    bin_performance,
    evaluate_portfolio,
    latent_trait_analysis,
    portfolio_dataset,
)
from irtbridge.portfolio.spline import PenalizedSpline, penalized_spline

__all__ = [
    "evaluate_portfolio",
    "PortfolioEvaluation",
    "latent_trait_analysis",
    "LatentTraitAnalysis",
    "algorithm_characteristics",
    "bin_performance",
    "portfolio_dataset",
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
