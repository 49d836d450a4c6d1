# Differential functioning beyond DIF's likelihood ratio tests (irtbridge.calibration.analysis.functioning):
# mirt's DRF, DTF, empirical_ES on a live multipleGroup model, SIBTEST on raw responses, and DIF by
# Wald tests. Items arrive as 1-based positions, group labels as character data; results go back as
# plain data.frames (mirt's own columns, lists of tables stacked).

irtb_plain_df <- function(x) {
  x <- as.data.frame(x, check.names = FALSE, stringsAsFactors = FALSE)
  class(x) <- "data.frame"
  for (j in seq_along(x)) if (is.factor(x[[j]])) x[[j]] <- as.character(x[[j]])
  x
}

# mirt's DRF. Without draws: one row (or one per item with DIF = TRUE) of sDRF, uDRF, dDRF and their
# standardized versions. With draws (after set.seed(seed)): one row per statistic (and item), with the
# bootstrap interval and tests; the per-statistic tables are stacked with a `statistic` column.
irtb_mirt_drf <- function(fit, focal_items, draws, seed, by_item, ci, npts, theta_lim, best_fitting, p_adjust) {
  args <- list(fit, focal_items = as.integer(focal_items), DIF = by_item, CI = ci, npts = as.integer(npts),
               theta_lim = as.numeric(theta_lim), best_fitting = best_fitting,
               p.adjust = p_adjust, verbose = FALSE)
  if (!is.null(draws)) {
    args$draws <- as.integer(draws)
    set.seed(seed)
  }
  res <- do.call(mirt::DRF, args)
  if (is.null(draws)) return(irtb_plain_df(res))
  if (!by_item) {
    res <- irtb_plain_df(res)
    stacked <- data.frame(statistic = rownames(res), res, check.names = FALSE, stringsAsFactors = FALSE)
    names(stacked)[names(stacked) == "stat"] <- "value"
    return(irtb_drf_columns(stacked))
  }
  parts <- lapply(names(res), function(stat) {
    part <- irtb_plain_df(res[[stat]])
    names(part)[names(part) == stat] <- "value"
    data.frame(statistic = stat, part, check.names = FALSE, stringsAsFactors = FALSE)
  })
  irtb_drf_columns(irtb_bind_rows(parts))
}

# The interval columns under level-free names (mirt names them by the level: CI_2.5, CI_97.5).
irtb_drf_columns <- function(x) {
  ci <- grep("^CI_", names(x))
  if (length(ci) == 2L) names(x)[ci] <- c("ci_lower", "ci_upper")
  names(x)[names(x) == "adj_pvals"] <- "p_adjusted"
  rownames(x) <- NULL
  x
}

# Row-bind tables whose columns differ (dDRF has no test): missing columns become NA.
irtb_bind_rows <- function(parts) {
  cols <- unique(unlist(lapply(parts, names)))
  do.call(rbind, lapply(parts, function(p) {
    for (c in setdiff(cols, names(p))) p[[c]] <- NA_real_
    p[cols]
  }))
}

# mirt's DTF: the four score-metric statistics; with draws also their interval and the sDTF test.
irtb_mirt_dtf <- function(fit, draws, seed, ci, npts, theta_lim) {
  args <- list(fit, CI = ci, npts = as.integer(npts), theta_lim = as.numeric(theta_lim))
  if (is.null(draws)) {
    res <- do.call(mirt::DTF, args)
    return(data.frame(statistic = names(res), value = unname(res), stringsAsFactors = FALSE))
  }
  args$draws <- as.integer(draws)
  set.seed(seed)
  res <- do.call(mirt::DTF, args)
  out <- data.frame(statistic = names(res$observed), value = unname(res$observed), stringsAsFactors = FALSE)
  lower <- grep(sprintf("^CI_%s$", round((1 - ci) / 2, 3L) * 100), rownames(res$CIs))
  out$ci_lower <- unname(res$CIs[lower, out$statistic])
  out$ci_upper <- unname(res$CIs[-lower, out$statistic])
  out$p <- NA_real_
  out$p[out$statistic == "sDTF.score"] <- unname(res$tests[1L])
  out
}

# mirt's empirical_ES: item-level effect sizes (rows named by item) or the test-level ones (by_item = FALSE).
irtb_mirt_empirical_es <- function(fit, focal_items, by_item, npts, theta_lim) {
  res <- mirt::empirical_ES(fit, focal_items = as.integer(focal_items), DIF = by_item, npts = as.integer(npts),
                            theta_lim = as.numeric(theta_lim))
  res <- irtb_plain_df(res)
  if (by_item) return(data.frame(item = rownames(res), res, check.names = FALSE, stringsAsFactors = FALSE))
  data.frame(statistic = res[[1L]], value = res[[2L]], stringsAsFactors = FALSE)
}

# mirt's SIBTEST on the responses; one table, or (by_item) one per suspect item stacked with `item`.
irtb_mirt_sibtest <- function(data, item_names, group, suspect_set, match_set, focal_name, by_item,
                              guess_correction, Jmin, randomize, permute, seed, pk_focal, correction,
                              remove_cross, p_adjust) {
  args <- list(dat = irtb_matrix(data, item_names), group = as.character(group), focal_name = focal_name,
               guess_correction = guess_correction, Jmin = as.integer(Jmin), randomize = randomize,
               permute = as.integer(permute), pk_focal = pk_focal, correction = correction,
               remove_cross = remove_cross, DIF = by_item, p.adjust.method = p_adjust)
  if (!is.null(suspect_set)) args$suspect_set <- as.integer(suspect_set)
  if (!is.null(match_set)) args$match_set <- as.integer(match_set)
  if (randomize) set.seed(seed)
  res <- do.call(mirt::SIBTEST, args)
  if (!by_item) return(data.frame(test = rownames(res), irtb_plain_df(res), check.names = FALSE))
  irtb_bind_rows(lapply(names(res), function(item) {
    part <- irtb_plain_df(res[[item]])
    data.frame(item = item, test = rownames(part), part, check.names = FALSE, stringsAsFactors = FALSE)
  }))
}

# DIF by Wald tests of the `which` parameters of each item (mirt's DIF(..., Wald = TRUE), scheme "add").
irtb_mirt_dif_wald <- function(fit, which, items, p_adjust) {
  args <- list(fit, which.par = as.character(which), Wald = TRUE, p.adjust = p_adjust, verbose = FALSE)
  if (!is.null(items)) args$items2test <- as.character(items)
  res <- irtb_plain_df(do.call(mirt::DIF, args))
  res$item <- rownames(res)
  rownames(res) <- NULL
  res
}
