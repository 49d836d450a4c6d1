# Item calibration through mirt and ltm. Each fit helper returns plain data in one layout for both
# engines (IRT parameterization: a, b, g, u for dichotomous items; a, b1..bk for graded/gpcm) plus the
# live model object, which Python keeps only as an optional handle.

# `itemtype` is mirt's itemtype (one, or one per item), translated from irtbridge's model names in Python
# (irtbridge._catalogue): R never reads a model name. `syntax` (mirt.model text, a character string
# received as data) or `dims` sets the factor structure; `table` is a parameter table (columns of mirt's
# pars = "values") whose value/est/bounds/priors replace mirt's defaults.
# The SE rule for mirt fits: `fitter(args)` with SEs; when mirt cannot invert the information matrix (a
# warning) or the SE step fails (an error), the estimates are kept and the reason is returned, once.
irtb_fit_keeping_estimates <- function(fitter, args, se) {
  se_problem <- NULL
  fit <- tryCatch(
    withCallingHandlers(do.call(fitter, args), warning = function(w) {
      if (se && grepl("information matrix", conditionMessage(w), fixed = TRUE)) {
        se_problem <<- conditionMessage(w)
        invokeRestart("muffleWarning")
      }
    }),
    error = function(e) {
      if (!se) stop(e)
      # the SE step failed outright: refit without it so the estimates are not lost
      se_problem <<- conditionMessage(e)
      args$SE <- FALSE
      do.call(fitter, args)
    }
  )
  list(fit = fit, se_problem = se_problem)
}

# A fitter's starting values with a parameters table and priors applied, as args$pars; `adjust(args,
# values)` may first change the arguments from the table (e.g. constraints named by parameter number).
irtb_apply_pars <- function(fitter, args, priors, table, adjust = NULL) {
  values <- do.call(fitter, c(args, list(pars = "values")))
  if (!is.null(adjust)) args <- adjust(args, values)
  if (!is.null(table)) values <- irtb_apply_table(values, table)
  if (length(priors)) values <- irtb_apply_priors(values, priors)
  args$pars <- values
  args
}

# Why a fit that asked for SEs has none: the SE step's own problem, else a failed second-order test.
irtb_second_order_problem <- function(fit, se, se_problem) {
  if (se && is.null(se_problem) && isFALSE(fit@OptimInfo$secondordertest))
    return("the information matrix is not positive definite (second-order test failed)")
  se_problem
}

# `later` (SEs on demand): the fit also keeps its EM history and returns the arguments it was fitted
# with, so irtb_mirt_ses() can compute mirt's SE = TRUE for it afterwards.
# `equal_slopes`: the items that share one slope (irtbridge's 1PL, mirt's 2PL with the slopes constrained).
irtb_mirt_fit <- function(data, item_names, itemtype, se, options, priors = list(), dims = 1L, syntax = NULL,
                          table = NULL, later = FALSE, equal_slopes = character()) {
  data <- irtb_matrix(data, item_names)
  options <- irtb_latent_options(options)  # covdata/formula arrive as data (irtb_wrappers.R)
  structure <- if (is.null(syntax)) as.integer(dims) else mirt::mirt.model(syntax, itemnames = item_names)
  args <- c(list(data = data, model = structure, itemtype = itemtype, SE = se, verbose = FALSE), options)
  if (later) args$technical <- utils::modifyList(as.list(args$technical), list(storeEMhistory = TRUE))
  if (length(equal_slopes) || length(priors) || !is.null(table)) {
    args <- irtb_apply_pars(mirt::mirt, args, priors, table, adjust = function(args, values) {
      # one discrimination shared by the equal-slope items: constrain those slopes to a single parameter
      if (length(equal_slopes)) {
        one <- values$item %in% unlist(equal_slopes)
        args$constrain <- c(args$constrain, list(values$parnum[values$name == "a1" & one]))
      }
      args
    })
  }
  kept <- irtb_fit_keeping_estimates(mirt::mirt, args, se)
  fit <- kept$fit
  se_problem <- irtb_second_order_problem(fit, se, kept$se_problem)
  out <- irtb_mirt_result(fit, se && is.null(se_problem))
  out$se_problem <- se_problem
  # the arguments travel as an environment: Python keeps a handle to it and never converts it
  if (later) out$se_later <- list2env(list(args = args), parent = emptyenv())
  out
}

# mirt's SE = TRUE for a fit made with SE = FALSE (irtb_mirt_fit(later = TRUE)), the same numbers as
# refitting with SE = TRUE. mirt computes Oakes' (and the other EM-based) information matrices from the
# final estimates and the expected counts of the last E-step, which ran at the previous EM iterate; that
# iterate is the last row of the stored EM history (the second last when NCYCLES ran out). So: start at
# it and run one EM cycle with SE = TRUE. That cycle must land on the fit's own estimates (to 1e-9);
# when it does not (e.g. mirt's ML 3PL M-step, stochastic methods, SEM, non-Gaussian densities) the
# whole fit is repeated with SE = TRUE. Either way the estimates are checked against the fit's.
irtb_mirt_ses <- function(fit, later) {
  args <- later$args
  args$SE <- TRUE
  fitter <- irtb_later_fitter(later)
  values <- mirt::mod2values(fit)
  refit <- NULL
  cheap <- identical(fit@Options$method, "EM") && !identical(fit@Options$SE.type, "SEM") &&
    identical(fit@Options$dentype, "Gaussian") && !is.null(fit@Internals$EMhistory)
  if (cheap) refit <- irtb_mirt_se_cycle(fit, args, values, fitter)
  how <- "one EM cycle"
  if (is.null(refit) || !isTRUE(refit$same)) {
    how <- "a full refit"
    refit <- irtb_mirt_se_step(function() do.call(fitter, args), values)
  }
  problem <- refit$se_problem
  sefit <- refit$fit
  if (!refit$same && is.null(problem))
    problem <- "refitting with SE = TRUE did not reproduce the estimates"
  if (is.null(problem) && isFALSE(sefit@OptimInfo$secondordertest))
    problem <- "the information matrix is not positive definite (second-order test failed)"
  layout <- irtb_mirt_items(fit)
  # the model with SEs travels too: vcov, wald, CIs and MI scoring read its information matrix
  list(se = if (is.null(problem)) irtb_mirt_item_ses(sefit, layout$items, layout$irt), se_problem = problem,
       how = how, model = if (is.null(problem)) sefit)
}

# One EM cycle with SE = TRUE from the iterate before the fit's last (see irtb_mirt_ses). The M-step's
# iteration budget follows EM.group's rule from the log-likelihood history, as in the fit's last cycle.
irtb_mirt_se_cycle <- function(fit, args, values, fitter = mirt::mirt) {
  history <- fit@Internals$EMhistory
  row <- nrow(history) - !isTRUE(mirt::extract.mirt(fit, "converged"))
  if (row < 1L) return(NULL)
  start <- values
  start$value <- unname(history[row, values$parnum])
  bounded <- start$name %in% c("g", "u")  # kept on the logit scale during EM
  start$value[bounded] <- stats::plogis(start$value[bounded])
  loglik <- fit@Internals$collectLL
  first <- if (identical(fit@Options$Moptim, "L-BFGS-B")) 5L else 1L
  rate <- 0.4
  for (cycle in seq_along(loglik)) if (cycle > first) {
    change <- loglik[cycle - 1L] - loglik[cycle]
    if (change < 0) rate <- exp(change)
    if (!is.finite(rate)) rate <- 1e-6
  }
  control <- as.list(args$control)
  if (is.null(control$maxit)) control$maxit <- max(ceiling(rate * 50), 15)
  if (is.null(control$iter.max)) control$iter.max <- max(ceiling(rate * 100), 25)
  args$control <- control
  args$pars <- start
  args$TOL <- Inf  # stop after the first M-step
  args$technical <- utils::modifyList(as.list(args$technical), list(NCYCLES = 2L))
  irtb_mirt_se_step(function() do.call(fitter, args), values)
}

# The function a fit made for SEs on demand was fitted with: mirt(), or the one it kept (bfactor()).
irtb_later_fitter <- function(later) if (is.null(later$fitter)) mirt::mirt else later$fitter

# Run `refit`: the fit's own warnings were raised when it was made, so only the SE step's problem is kept
# (the SE rule of irtb_fit_keeping_estimates); `same` says whether it reproduced `values` to 1e-9.
irtb_mirt_se_step <- function(refit, values) {
  problem <- NULL
  fit <- tryCatch(
    withCallingHandlers(refit(), warning = function(w) {
      if (grepl("information matrix", conditionMessage(w), fixed = TRUE)) problem <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    }),
    error = function(e) {
      problem <<- conditionMessage(e)
      NULL
    })
  if (is.null(fit)) return(list(fit = NULL, same = FALSE, se_problem = problem))
  again <- mirt::mod2values(fit)
  same <- nrow(again) == nrow(values) && max(abs(again$value - values$value)) <= 1e-9
  list(fit = fit, same = same, se_problem = problem)
}

# Priors arrive as data (a list of lists: param, type, p1, p2, items or NULL for every item) and are
# written into mirt's parameter table, the same table `mirt(..., pars = "values")` returns.
irtb_apply_priors <- function(values, priors) {
  for (p in priors) {
    rows <- values$name == p$param & values$est
    if (!is.null(p$items)) rows <- rows & values$item %in% p$items
    if (!any(rows)) stop(sprintf("no estimated parameter '%s' to put a prior on", p$param))
    values$prior.type[rows] <- p$type
    values$prior_1[rows] <- p$p1
    values$prior_2[rows] <- p$p2
  }
  values
}

# The parameter table from Python (a list of columns) onto mirt's own: same rows in the same order,
# then the settable columns replace mirt's defaults (values fixed or started, est, bounds, priors).
irtb_apply_table <- function(values, table) {
  if (length(table$item) != nrow(values) || any(as.character(table$item) != values$item) ||
      any(as.character(table$name) != values$name))
    stop("parameters: the table's item/name rows do not match this model's parameter table ",
         "(start from fit.parameters() or irtbridge.parameter_table() for the same data and model)")
  for (col in intersect(c("value", "lbound", "ubound", "prior_1", "prior_2"), names(table)))
    values[[col]] <- as.numeric(table[[col]])
  if (!is.null(table$est)) values$est <- as.logical(table$est)
  if (!is.null(table$prior.type)) values$prior.type <- as.character(table$prior.type)
  values
}

# mirt's pars = "values" table for the model calibrate() would fit, without fitting it.
irtb_mirt_values <- function(data, item_names, itemtype, options, dims = 1L, syntax = NULL) {
  data <- irtb_matrix(data, item_names)
  options <- irtb_latent_options(options)
  structure <- if (is.null(syntax)) as.integer(dims) else mirt::mirt.model(syntax, itemnames = item_names)
  v <- do.call(mirt::mirt, c(list(data = data, model = structure, itemtype = itemtype,
                                  pars = "values", verbose = FALSE), options))
  irtb_plain_table(v)
}

# Only what the pre-fit name check reads (irtbridge.calibration.inputs.checks): fewer strings to convert.
irtb_mirt_names <- function(...) irtb_mirt_values(...)[c("item", "name", "est")]

irtb_plain_table <- function(v) {
  for (j in seq_along(v)) if (is.factor(v[[j]])) v[[j]] <- as.character(v[[j]])
  v
}

irtb_mirt_parameters <- function(fit) irtb_plain_table(mirt::mod2values(fit))

# Rotated standardized loadings with communalities, and the factor correlations (summary.mirt).
irtb_mirt_loadings <- function(fit, rotate) {
  args <- list(fit, verbose = FALSE)
  if (!is.null(rotate)) args$rotate <- rotate
  s <- do.call(mirt::summary, args)
  loads <- cbind(unclass(s$rotF), h2 = as.numeric(s$h2))
  list(loadings = loads, fcor = unclass(s$fcor))
}

irtb_mirt_plausible <- function(fit, n, seed) {
  set.seed(seed)
  draws <- mirt::fscores(fit, plausible.draws = n, verbose = FALSE)
  if (!is.list(draws)) draws <- list(draws)
  draws <- lapply(draws, function(d) { colnames(d) <- colnames(mirt::coef(fit, simplify = TRUE)$cov); d })
  do.call(rbind, draws)
}

irtb_mirt_result <- function(fit, se) {
  if (mirt::extract.mirt(fit, "nfact") > 1L) return(irtb_mirt_result_multi(fit, se))
  layout <- irtb_mirt_items(fit)
  simple <- layout$simple
  # a latent density with no mean and variance (ULL's log-normal: GroupPars meanlog, sdlog) gives NA
  c(list(items = simple$items, se = if (se) irtb_mirt_item_ses(fit, simple$items, layout$irt),
         latent_mean = if (is.null(simple$means)) NA_real_ else unname(simple$means[1]),
         latent_var = if (is.null(simple$cov)) NA_real_ else unname(simple$cov[1, 1])),
    irtb_mirt_result_common(fit))
}

# The item table's layout: one coef() call gives the items and the latent distribution (means, cov);
# item types without an IRT parameterization in mirt (e.g. grsm), and models with several factors, stay
# in slope-intercept form.
irtb_mirt_items <- function(fit) {
  irt <- mirt::extract.mirt(fit, "nfact") == 1L
  simple <- if (!irt) mirt::coef(fit, simplify = TRUE) else
    tryCatch(mirt::coef(fit, IRTpars = TRUE, simplify = TRUE), error = function(e) {
      irt <<- FALSE
      mirt::coef(fit, simplify = TRUE)
    })
  list(items = simple$items, irt = irt, simple = simple)
}

# The standard errors laid out like the item table (NA where mirt reports none), from coef(printSE = TRUE).
irtb_mirt_item_ses <- function(fit, items, irt = FALSE) {
  per_item <- mirt::coef(fit, IRTpars = irt, printSE = TRUE)[colnames(fit@Data$data)]
  ses <- items
  ses[] <- NA_real_
  for (i in seq_along(per_item)) {
    m <- per_item[[i]]
    cols <- intersect(colnames(m), colnames(ses))
    if ("SE" %in% rownames(m)) ses[i, cols] <- m["SE", cols]
  }
  ses
}

# Several factors: slope-intercept items (mirt has no IRT parameterization beyond one factor) and the
# whole latent mean vector and covariance matrix.
irtb_mirt_result_multi <- function(fit, se) {
  simple <- mirt::coef(fit, simplify = TRUE)
  items <- simple$items
  ses <- if (se) irtb_mirt_item_ses(fit, items)
  out <- irtb_mirt_result_common(fit)
  c(list(items = items, se = ses, latent_mean = unname(simple$means[1]), latent_var = unname(simple$cov[1, 1]),
         means = simple$means, cov = simple$cov), out)
}

irtb_mirt_result_common <- function(fit) {
  list(
    loglik = mirt::extract.mirt(fit, "logLik"),
    aic = mirt::extract.mirt(fit, "AIC"),
    bic = mirt::extract.mirt(fit, "BIC"),
    n_parameters = as.integer(mirt::extract.mirt(fit, "nest")),
    converged = isTRUE(mirt::extract.mirt(fit, "converged")),
    iterations = as.integer(mirt::extract.mirt(fit, "iterations")),
    factor_names = as.character(mirt::extract.mirt(fit, "factorNames")),
    model = fit
  )
}

irtb_mirt_scores <- function(fit, method, responses, item_names) {
  if (!is.null(responses)) responses <- irtb_matrix(responses, item_names)
  args <- list(fit, method = method, full.scores = TRUE, full.scores.SE = TRUE, verbose = FALSE)
  if (!is.null(responses)) args$response.pattern <- responses
  s <- do.call(mirt::fscores, args)
  # one factor, whatever the spec named it ("F1" by default, "F" after mirt.model("F = 1-5"))
  if (mirt::extract.mirt(fit, "nfact") == 1L) {
    f <- mirt::extract.mirt(fit, "factorNames")[1L]
    return(cbind(theta = s[, f], se = s[, paste0("SE_", f)]))
  }
  s
}

# `fun` is ltm's fitting function (irtbridge._catalogue's ltm column); `unit_slopes` fixes rasch()'s common
# discrimination at 1 (the Rasch model; free, it is the 1PL).
irtb_ltm_fit <- function(data, item_names, fun, unit_slopes, se, options) {
  d <- as.data.frame(irtb_matrix(data, item_names), check.names = FALSE)
  fitter <- switch(fun, rasch = ltm::rasch, ltm = ltm::ltm, tpm = ltm::tpm, grm = ltm::grm, gpcm = ltm::gpcm,
                   stop(sprintf("ltm has no fitting function '%s'", fun)))
  first <- if (fun == "ltm") list(formula = d ~ z1) else list(data = d)
  if (unit_slopes) first$constraint <- cbind(ncol(d) + 1L, 1)
  fit <- do.call(fitter, c(first, options))
  irtb_ltm_result(fit, fun, unit_slopes, se, colnames(d))
}

irtb_ltm_result <- function(fit, fun, unit_slopes, se, item_names) {
  J <- length(item_names)
  if (fun %in% c("grm", "gpcm")) {
    # grm/gpcm keep one vector per item: thresholds then the discrimination (IRT parameterization)
    pars <- if (fun == "grm") ltm:::IRT.parm(fit)$parms else fit$coefficients
    k <- max(lengths(pars)) - 1L
    items <- matrix(NA_real_, J, k + 1L, dimnames = list(item_names, c("a", paste0("b", seq_len(k)))))
    for (i in seq_len(J)) {
      p <- pars[[i]]
      n <- length(p)
      items[i, c(1L, seq_len(n - 1L) + 1L)] <- c(p[n], p[-n])
    }
  } else {
    p <- ltm:::IRT.parm(fit, standard.errors = FALSE)$parms
    if (fun == "tpm") {
      g <- stats::plogis(p[, 1]) * fit$max.guessing
      items <- cbind(a = p[, 3], b = p[, 2], g = g, u = 1)
    } else if (fun == "rasch") {
      # rasch(): J difficulties, then the one common discrimination
      items <- cbind(a = p[J + 1L], b = p[seq_len(J)], g = 0, u = 1)
    } else {
      items <- cbind(a = p[, 2], b = p[, 1], g = 0, u = 1)
    }
    rownames(items) <- item_names
  }
  ses <- if (se) irtb_ltm_ses(fit, fun, unit_slopes, item_names) else list()
  ll <- stats::logLik(fit)
  conv <- if (!is.null(fit$convergence)) fit$convergence else fit$conv
  list(
    items = items, se = ses$se,
    loglik = as.numeric(ll), aic = stats::AIC(fit), bic = stats::BIC(fit),
    n_parameters = as.integer(attr(ll, "df")),
    converged = identical(as.integer(conv), 0L),
    iterations = as.integer(if (!is.null(fit$counts)) fit$counts[1] else NA),
    latent_mean = 0, latent_var = 1,
    se_problem = ses$se_problem,
    model = fit
  )
}

# ltm's standard errors from the fit's Hessian (ltm keeps it, so this needs no refit), laid out like the
# item table; the delta method maps the 3PL's guessing SE to the probability scale. grm/gpcm: none (NULL).
irtb_ltm_ses <- function(fit, fun, unit_slopes, item_names) {
  if (fun %in% c("grm", "gpcm")) return(list(se = NULL, se_problem = NULL))
  J <- length(item_names)
  se_problem <- NULL
  irt <- tryCatch(ltm:::IRT.parm(fit, standard.errors = TRUE), error = function(e) {
    # the Hessian could not be inverted: keep the estimates, report why the SEs are missing
    se_problem <<- conditionMessage(e)
    NULL
  })
  if (is.null(irt) || is.null(irt$se)) return(list(se = NULL, se_problem = se_problem))
  p <- irt$parms
  s <- irt$se
  ses <- matrix(NA_real_, J, 4L, dimnames = list(item_names, c("a", "b", "g", "u")))
  if (fun == "tpm") {
    ses[, "g"] <- s[seq_len(J)] * stats::dlogis(p[, 1]) * fit$max.guessing
    ses[, "b"] <- s[J + seq_len(J)]
    ses[, "a"] <- s[2 * J + seq_len(J)]
  } else if (fun == "ltm") {
    ses[, "b"] <- s[seq_len(J)]
    ses[, "a"] <- s[J + seq_len(J)]
  } else {
    ses[, "b"] <- s[seq_len(J)]
    if (!unit_slopes) ses[, "a"] <- s[J + 1L]  # rasch()'s free common discrimination
  }
  list(se = ses, se_problem = se_problem)
}

irtb_ltm_scores <- function(fit, method, responses, item_names) {
  if (!is.null(responses)) responses <- irtb_matrix(responses, item_names)
  method <- switch(method, EAP = "EAP", MAP = "EB", stop(sprintf("ltm's factor.scores has no method '%s'", method)))
  X <- as.data.frame(if (is.null(responses)) fit$X else responses)
  # factor.scores scores each row alone (EB: one optim per row, always started at 0), so a response pattern's
  # score is the same in any set of rows: EB scores each distinct pattern once and copies it to the rows that
  # answered so (LSAT's 1000 rows are 30 patterns: 8 s -> 0.3 s). EAP, one matrix product, takes every row as is.
  rows <- seq_len(nrow(X))
  if (method == "EB" && nrow(X) > 0L) {
    key <- do.call(paste, c(unname(as.list(X)), sep = "\r"))
    first <- !duplicated(key)
    rows <- match(key, key[first])
    X <- X[first, , drop = FALSE]
  }
  s <- ltm::factor.scores(fit, method = method, resp.patterns = X)$score.dat
  cbind(theta = s[rows, "z1"], se = s[rows, "se.z1"])
}
