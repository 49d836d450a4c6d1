# First-class wrappers of mirt's remaining everyday arguments and functions (issue 26): latent regression
# (covdata/formula), simulation (simdata). Everything from Python arrives as data: covariates as a named
# list of columns, the formula as one character string that is parsed, checked and only then made a formula.

# The functions a latent-regression formula may call: model-formula operators and a few transformations.
# Anything else (and any name that is not a covariate) is refused before the formula exists, so nothing
# in the text is ever evaluated but these.
irtb_formula_functions <- c("~", "+", "-", "*", ":", "^", "/", "(", "%in%", "I", "log", "exp", "sqrt", "abs",
                            "poly", "factor", "scale")

# `functions` and `what` let other wrappers (mixedmirt's random effects: `|`) reuse the check.
irtb_check_formula_part <- function(x, variables, functions = irtb_formula_functions, what = "latent-regression",
                                    arg = "formula") {
  if (is.call(x)) {
    head <- x[[1L]]
    if (!is.symbol(head) || !(as.character(head) %in% functions))
      stop(sprintf("%s: '%s' is not allowed in a %s formula (allowed: %s)", arg,
                   paste(deparse(head), collapse = ""), what, paste(functions[-1L], collapse = " ")),
           call. = FALSE)
    for (a in as.list(x)[-1L]) irtb_check_formula_part(a, variables, functions, what, arg)
  } else if (is.symbol(x)) {
    if (!(as.character(x) %in% variables))
      stop(sprintf("%s: '%s' is not a covariate (covariates: %s)", arg, as.character(x),
                   paste(variables, collapse = ", ")), call. = FALSE)
  } else if (!(is.numeric(x) && length(x) == 1L)) {
    stop(sprintf("%s: only covariates, numbers and model-formula operators may appear", arg), call. = FALSE)
  }
  invisible(TRUE)
}

# One-sided formula text -> formula, after every call and name in it was checked.
irtb_safe_formula <- function(text, variables, functions = irtb_formula_functions, what = "latent-regression",
                              arg = "formula") {
  lang <- tryCatch(str2lang(text), error = function(e)
    stop(sprintf("%s: cannot read '%s' as a formula (%s)", arg, text,
                 gsub("\\s+", " ", sub("^<text>:[0-9:]+ ", "", conditionMessage(e)))), call. = FALSE))
  if (!is.call(lang) || !identical(lang[[1L]], as.symbol("~")) || length(lang) != 2L)
    stop(sprintf("%s: write a one-sided formula such as '~ x1 + x2'", arg), call. = FALSE)
  irtb_check_formula_part(lang[[2L]], variables, functions, what, arg)
  f <- stats::as.formula(text)
  environment(f) <- asNamespace("stats")  # poly, scale etc. resolve there, never in a user workspace
  f
}

# The check alone, before a fit (Python turns its error into a ValidationError).
irtb_check_formula <- function(formula, variables) {
  irtb_safe_formula(formula, as.character(variables))
  TRUE
}

# calibrate()'s options with covdata (a named list of columns) made a data.frame (names kept verbatim)
# and formula (text) made a checked formula; other options pass unchanged.
irtb_latent_options <- function(options) {
  if (!is.null(options$covdata)) {
    options$covdata <- list2DF(lapply(options$covdata, function(col) col))
    if (!is.null(options$formula))
      options$formula <- irtb_safe_formula(options$formula, names(options$covdata))
  }
  options
}

# The latent regression coefficients and their standard errors (NA where fixed or not computed).
irtb_latent_regression <- function(fit) {
  lr <- mirt::coef(fit, printSE = TRUE)$lr.betas
  # a fit with standard errors gives list(betas, SE); one without them the betas matrix alone
  if (!is.list(lr)) return(list(betas = lr, se = lr * NA_real_))
  list(betas = lr$betas, se = if (!is.null(lr$SE)) lr$SE else lr$betas * NA_real_)
}

# simdata after set.seed(seed): a, d (NaN from numpy made NA: "no such parameter"), and the optional
# latent distribution or the traits themselves.
irtb_simdata <- function(a, d, n, itemtype, seed, guess, upper, mu = NULL, sigma = NULL, theta = NULL) {
  a[is.nan(a)] <- NA
  d[is.nan(d)] <- NA
  args <- list(a = a, d = d, N = n, itemtype = itemtype, guess = guess, upper = upper)
  if (!is.null(mu)) args$mu <- mu
  if (!is.null(sigma)) args$sigma <- sigma
  if (!is.null(theta)) args$Theta <- theta
  set.seed(seed)
  x <- do.call(mirt::simdata, args)
  storage.mode(x) <- "double"
  x
}
