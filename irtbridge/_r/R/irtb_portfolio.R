# Algorithm-portfolio evaluation (airt): calibration of Samejima's continuous response model through
# EstCRM. Everything downstream of the item parameters is native Python (irtbridge.portfolio).

# Fit the continuous response model by Shojima's EM (EstCRM). estimator = "airt" runs airt's variant of
# EstCRM::EstCRMitem (what airt::cirtmodel calls), which lets a discrimination turn negative for an
# algorithm that does well where the others do badly; "EstCRM" runs EstCRM::EstCRMitem itself, which
# keeps every discrimination positive (and stops with an error when the data need a negative one).
irtb_crm_fit <- function(data, item_names, max_item, min_item, estimator, max_em_cycle, converge) {
  d <- as.data.frame(irtb_matrix(data, item_names), check.names = FALSE)
  fit <- switch(estimator,
    airt = {
      if (!requireNamespace("airt", quietly = TRUE)) stop("R package 'airt' is not installed")
      est <- get("EstCRMitem2", envir = asNamespace("airt"), mode = "function")
      est(d, max.item = max_item, min.item = min_item, max.EMCycle = max_em_cycle, converge = converge,
          type = "Shojima")
    },
    EstCRM = EstCRM::EstCRMitem(d, max.item = max_item, min.item = min_item, max.EMCycle = max_em_cycle,
                                converge = converge, type = "Shojima"),
    stop(sprintf("unknown CRM estimator '%s'", estimator))
  )
  param <- fit$param
  dimnames(param) <- list(item_names, c("a", "b", "alpha"))
  se <- fit$std.err
  dimnames(se) <- list(item_names, c("a", "b", "alpha"))
  list(
    param = param,
    se = se,
    loglik = as.numeric(fit$LL),
    # EstCRM keeps one parameter table per EM cycle, the starting values included
    iterations = as.integer(length(fit$iterations) - 1L),
    change = as.numeric(fit$dif)
  )
}
