# Reference values for tests/test_irt.py, computed with plain mirt calls (no irtbridge R code).
#
# Usage: Rscript irt_reference.R JOBDIR
#
# JOBDIR/jobs.csv has one row per job with columns
#   id, kind, model, items, data, method, mean, sd, quadpts, lo, hi
# where `items` is a CSV of IRT parameters (column `item`, then a, b, g, u or a, b1..bk, mirt's
# IRTpars = TRUE layout), and `data` is a CSV of responses (kind "fscores": one column per item,
# NA for missing) or of abilities (kind "trace": one column `theta`). Each job writes JOBDIR/<id>.csv:
#   fscores: theta, se   from fscores(method, quadpts, theta_lim, mean, cov, response.pattern)
#   trace:   p_<j>_<k> (probtrace), info_<j> (iteminfo), score_<j> (expected.item), tscore
#            (expected.test) at each theta, j = item position, k = category 0..K-1.
# The model is built from the fixed parameters (pars = "values", est = FALSE) and, before anything is
# computed, mirt's own coef(IRTpars = TRUE) must give back the input parameters: that pins down the
# IRT <-> slope-intercept mapping (d = -a b; graded d_k = -a b_k; gpcm d_k = -a (b_1 + ... + b_k)).

suppressPackageStartupMessages(library(mirt))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) != 1L) stop("usage: Rscript irt_reference.R JOBDIR")
jobdir <- args[[1L]]
jobs <- read.csv(file.path(jobdir, "jobs.csv"), stringsAsFactors = FALSE)

dichotomous <- c("rasch", "1PL", "2PL", "3PL", "4PL")

threshold_matrix <- function(items) {
  bcols <- grep("^b[0-9]+$", names(items), value = TRUE)
  bcols <- bcols[order(as.integer(sub("^b", "", bcols)))]
  as.matrix(items[, bcols, drop = FALSE])
}

build_model <- function(items, model) {
  J <- nrow(items)
  if (model %in% dichotomous) {
    itemtype <- if (model %in% c("rasch", "1PL")) "2PL" else model
    K <- rep(2L, J)
  } else {
    itemtype <- model
    B <- threshold_matrix(items)
    K <- as.integer(rowSums(!is.na(B)) + 1L)
  }
  # Placeholder data in which every item shows every category, so mirt sets up K categories;
  # nothing is estimated from it.
  n <- 2L * max(K)
  dat <- sapply(K, function(k) rep(seq_len(k) - 1L, length.out = n))
  colnames(dat) <- items$item
  sv <- mirt(dat, 1, itemtype = itemtype, pars = "values", verbose = FALSE)
  for (j in seq_len(J)) {
    rows <- sv$item == items$item[j]
    set <- function(name, value) {
      hit <- rows & sv$name == name
      if (sum(hit) != 1L) stop("no parameter ", name, " for item ", items$item[j])
      sv$value[hit] <<- value
    }
    a <- items$a[j]
    set("a1", a)
    if (model %in% dichotomous) {
      set("d", -a * items$b[j])
      set("g", items$g[j])
      set("u", items$u[j])
    } else if (model == "graded") {
      for (k in seq_len(K[j] - 1L)) set(paste0("d", k), -a * B[j, k])
    } else {
      steps <- cumsum(B[j, seq_len(K[j] - 1L)])
      for (k in seq_len(K[j] - 1L)) set(paste0("d", k), -a * steps[k])
    }
  }
  sv$est <- FALSE
  mod <- mirt(dat, 1, itemtype = itemtype, pars = sv, TOL = NaN, verbose = FALSE)

  back <- coef(mod, IRTpars = TRUE, simplify = TRUE)$items
  want <- if (model %in% dichotomous) as.matrix(items[, c("a", "b", "g", "u")]) else cbind(a = items$a, B)
  got <- back[, seq_len(ncol(want)), drop = FALSE]
  same <- (is.na(want) & is.na(got)) | (abs(want - got) < 1e-10)
  if (!all(same)) stop("mirt's IRTpars do not reproduce the input parameters for model ", model)
  list(mod = mod, K = K)
}

for (i in seq_len(nrow(jobs))) {
  job <- jobs[i, ]
  items <- read.csv(file.path(jobdir, job$items), stringsAsFactors = FALSE, check.names = FALSE)
  built <- build_model(items, job$model)
  mod <- built$mod
  if (job$kind == "fscores") {
    resp <- as.matrix(read.csv(file.path(jobdir, job$data), check.names = FALSE))
    fs <- fscores(mod, method = job$method, response.pattern = resp, quadpts = job$quadpts,
                  theta_lim = c(job$lo, job$hi), mean = job$mean, cov = matrix(job$sd^2, 1L, 1L),
                  full.scores.SE = TRUE, verbose = FALSE)
    out <- data.frame(theta = fs[, "F1"], se = fs[, "SE_F1"])
  } else if (job$kind == "trace") {
    Theta <- matrix(read.csv(file.path(jobdir, job$data))$theta)
    out <- data.frame(row.names = seq_len(nrow(Theta)))
    for (j in seq_len(nrow(items))) {
      item <- extract.item(mod, j)
      P <- probtrace(item, Theta)
      for (k in seq_len(ncol(P))) out[[sprintf("p_%d_%d", j, k - 1L)]] <- P[, k]
      out[[sprintf("info_%d", j)]] <- iteminfo(item, Theta)
      out[[sprintf("score_%d", j)]] <- expected.item(item, Theta)
    }
    out$tscore <- expected.test(mod, Theta)
  } else {
    stop("unknown job kind ", job$kind)
  }
  write.csv(out, file.path(jobdir, paste0(job$id, ".csv")), row.names = FALSE)
}
