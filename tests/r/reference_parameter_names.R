# Reference for tests/test_spec_names.py: mirt's own parameter tables (pars = "values") for every item
# type irtbridge fits, and what mirt itself does with specs that name parameters a model lacks.
#   Rscript tests/r/reference_parameter_names.R OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
lsat <- expand.table(LSAT7)
table_of <- function(data, model, itemtype) {
  v <- mirt(data, model, itemtype, pars = "values", verbose = FALSE)
  list(item = as.character(v$item), name = as.character(v$name), est = v$est)
}
# irtbridge name -> (data, factors, mirt itemtype); "1PL" is mirt's 2PL with the slopes constrained equal
cases <- list(rasch = list(lsat, 1, "Rasch"), "1PL" = list(lsat, 1, "2PL"), "2PL" = list(lsat, 1, "2PL"),
              "3PL" = list(lsat, 1, "3PL"), "4PL" = list(lsat, 1, "4PL"), "2PL_2" = list(lsat, 2, "2PL"),
              "3PL_2" = list(lsat, 2, "3PL"), graded = list(Science, 1, "graded"), gpcm = list(Science, 1, "gpcm"),
              nominal = list(Science, 1, "nominal"), grsm = list(Science, 1, "grsm"), rsm = list(Science, 1, "rsm"),
              pcm = list(Science, 1, "Rasch"), graded_2 = list(Science, 2, "graded"))
tables <- lapply(cases, function(x) table_of(x[[1]], x[[2]], x[[3]]))
# where mirt checks a name itself it stops with an error; elsewhere it carries on silently
mirt_says <- function(syntax) tryCatch({
  mirt(lsat, mirt.model(syntax, itemnames = colnames(lsat)), "2PL", verbose = FALSE, SE = FALSE)
  "accepted"
}, error = function(e) conditionMessage(e))
silent_prior <- suppressWarnings(mirt(lsat, mirt.model("F1 = 1-5\nPRIOR = (1-5, g, beta, 5, 17)"), "2PL",
                                      verbose = FALSE, SE = FALSE))
out <- list(tables = tables,
            errors = list(constrain_a2 = mirt_says("F1 = 1-5\nCONSTRAIN = (1, 2, a2)"),
                          prior_a2 = mirt_says("F1 = 1-5\nPRIOR = (1-5, a2, norm, 0, 1)"),
                          constrain_g = mirt_says("F1 = 1-5\nCONSTRAIN = (1, 2, g)"),
                          fixed_a2 = mirt_says("F1 = 1-5\nFIXED = (1, a2)"),
                          start_d3 = mirt_says("F1 = 1-5\nSTART = (1, d3, 1.0)\nFIXED = (1, d3)")),
            # a prior on the 2PL's fixed g moves it away from 0 without estimating it
            silent_prior_g = unname(coef(silent_prior, simplify = TRUE)$items[, "g"]))
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[1])
