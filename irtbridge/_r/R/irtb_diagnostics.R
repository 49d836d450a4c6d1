# Fit diagnostics of a mirt model: each helper calls mirt's own function on the live model and returns
# plain data (data.frames and matrices), never printed output.

irtb_need_mirt <- function(fit, groups = FALSE) {
  if (!inherits(fit, "SingleGroupClass") && !(groups && inherits(fit, "MultipleGroupClass")))
    stop("fit diagnostics need a single-group mirt model")
}

# A multiple-group model gives one table per group: stacked, with a `group` column first.
irtb_itemfit <- function(fit, stats) {
  irtb_need_mirt(fit, groups = TRUE)
  res <- mirt::itemfit(fit, fit_stats = stats)
  if (inherits(fit, "MultipleGroupClass")) {
    res <- do.call(rbind, lapply(names(res), function(g) cbind(group = g, as.data.frame(res[[g]]))))
    res$group <- as.character(res$group)
  }
  out <- as.data.frame(res)
  out$item <- as.character(out$item)
  rownames(out) <- NULL
  out
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
