# Fit diagnostics of a mirt model: each helper calls mirt's own function on the live model and returns
# plain data (data.frames and matrices), never printed output.

irtb_need_mirt <- function(fit, groups = FALSE) {
  if (!inherits(fit, "SingleGroupClass") && !(groups && inherits(fit, "MultipleGroupClass")))
    stop("fit diagnostics need a single-group mirt model")
}

# A multiple-group model gives one table per group: stacked, with a `group` column first.
# Missing answers: S_X2 and Zh need complete rows. `na_rm` is mirt's na.rm = TRUE (rows with a missing
# answer dropped); `impute` > 0 completes the data `impute` times (plausible values, then mirt's
# imputeMissing), computes itemfit on each completed data set at the fit's own parameters (the route of
# mirt's former itemfit(impute = )) and averages, with the standard deviations over imputations. With
# neither, when mirt would refuse, the count of incomplete rows comes back instead of a table.
irtb_itemfit <- function(fit, stats, na_rm = FALSE, impute = 0L, seed = 0L) {
  irtb_need_mirt(fit, groups = TRUE)
  data <- mirt::extract.mirt(fit, "data")
  incomplete <- sum(rowSums(is.na(data)) > 0)
  complete_only <- any(c("S_X2", "Zh") %in% stats)
  if (incomplete > 0 && complete_only && !na_rm && impute == 0)
    return(list(incomplete = incomplete, respondents = nrow(data)))
  if (impute > 0 && incomplete > 0) return(irtb_itemfit_imputed(fit, stats, as.integer(impute), seed))
  res <- suppressMessages(mirt::itemfit(fit, fit_stats = stats, na.rm = isTRUE(na_rm)))
  irtb_itemfit_frame(fit, res)
}

irtb_itemfit_frame <- function(fit, res) {
  if (inherits(fit, "MultipleGroupClass")) {
    res <- do.call(rbind, lapply(names(res), function(g) cbind(group = g, as.data.frame(res[[g]]))))
    res$group <- as.character(res$group)
  }
  out <- as.data.frame(res)
  out$item <- as.character(out$item)
  rownames(out) <- NULL
  out
}

irtb_itemfit_imputed <- function(fit, stats, impute, seed) {
  if (inherits(fit, "MultipleGroupClass")) stop("impute is for single-group fits; use na_rm = TRUE")
  set.seed(seed)
  draws <- mirt::fscores(fit, plausible.draws = impute, verbose = FALSE)
  if (!is.list(draws)) draws <- list(draws)
  tables <- lapply(draws, function(theta) {
    full <- mirt::imputeMissing(fit, theta, warn = FALSE)
    shell <- mirt::mirt(full, 1, TOL = NaN, verbose = FALSE,
                        technical = list(customK = fit@Data$K, message = FALSE, warn = FALSE))
    one <- fit
    one@Data <- shell@Data
    irtb_itemfit_frame(one, suppressMessages(mirt::itemfit(one, fit_stats = stats)))
  })
  numeric <- names(tables[[1]])[vapply(tables[[1]], is.numeric, logical(1))]
  stacked <- lapply(numeric, function(col) sapply(tables, function(t) t[[col]]))
  names(stacked) <- numeric
  out <- tables[[1]]
  sd <- out
  for (col in numeric) {
    m <- matrix(stacked[[col]], nrow = nrow(out))
    out[[col]] <- rowMeans(m)
    sd[[col]] <- if (ncol(m) > 1) apply(m, 1, stats::sd) else NA_real_
  }
  list(table = out, sd = sd, impute = impute)
}

# Rows in the order of the fitted responses (for a multiple-group model too).
irtb_personfit <- function(fit) {
  irtb_need_mirt(fit, groups = TRUE)
  as.data.frame(mirt::personfit(fit))
}

irtb_m2 <- function(fit, type = "M2*") {
  irtb_need_mirt(fit, groups = TRUE)
  out <- as.data.frame(mirt::M2(fit, type = type))
  rownames(out) <- NULL
  out
}

irtb_residuals <- function(fit, type) {
  irtb_need_mirt(fit)
  m <- mirt::residuals(fit, type = type, verbose = FALSE)
  unclass(as.matrix(m))
}

irtb_reliability <- function(fit) {
  irtb_need_mirt(fit)
  s <- mirt::fscores(fit, method = "EAP", full.scores.SE = TRUE, verbose = FALSE)
  list(marginal = unname(mirt::marginal_rxx(fit)), empirical = unname(mirt::empirical_rxx(s)))
}

irtb_anova <- function(fits) {
  for (f in fits) irtb_need_mirt(f)
  data <- lapply(fits, function(f) mirt::extract.mirt(f, "data"))
  for (i in seq_along(data)[-1]) {
    if (!identical(unname(data[[1]]), unname(data[[i]]))) {
      stop(sprintf("model %d was fitted on different data than model 1; compare() needs the same responses", i))
    }
  }
  # mirt's anova compares each model with the one before it; do it pair by pair with plain symbols
  # (its row labels come from the call, which do.call() would spell out in full)
  rows <- list()
  for (i in seq_along(fits)[-1]) {
    previous <- fits[[i - 1L]]
    current <- fits[[i]]
    pair <- as.data.frame(mirt::anova(previous, current, verbose = FALSE))
    if (i == 2L) rows[[1L]] <- pair[1L, , drop = FALSE]
    rows[[i]] <- pair[2L, , drop = FALSE]
  }
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}
