# Fit diagnostics of a mirt model: each helper calls mirt's own function on the live model and returns
# plain data (data.frames and matrices), never printed output.

irtb_need_mirt <- function(fit) {
  if (!inherits(fit, "SingleGroupClass")) stop("fit diagnostics need a single-group mirt model")
}

irtb_itemfit <- function(fit, stats) {
  irtb_need_mirt(fit)
  out <- as.data.frame(mirt::itemfit(fit, fit_stats = stats))
  out$item <- as.character(out$item)
  out
}

irtb_personfit <- function(fit) {
  irtb_need_mirt(fit)
  as.data.frame(mirt::personfit(fit))
}

irtb_m2 <- function(fit) {
  irtb_need_mirt(fit)
  out <- as.data.frame(mirt::M2(fit))
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
