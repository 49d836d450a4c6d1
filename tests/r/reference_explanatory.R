# Reference values for tests/calibration/test_explanatory.py: boot.mirt, SE.type, fixedCalib and
# mixedmirt called directly (none of irtbridge's R helpers).
#   Rscript tests/r/reference_explanatory.R boot|fixed|mixed|random OUT.json
suppressPackageStartupMessages({ library(mirt); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
part <- args[1]
lsat7 <- expand.table(LSAT7)
if (part == "boot") {
  two <- mirt(lsat7, 1, itemtype = "2PL", verbose = FALSE)
  set.seed(11); b <- boot.mirt(two, R = 4)
  se_type <- function(type) unname(as.vector(vcov(mirt(lsat7, 1, itemtype = "2PL", SE = TRUE, SE.type = type,
                                                       verbose = FALSE))))
  out <- list(t = as.vector(b$t), t0 = b$t0, se = apply(b$t, 2, sd), value = mod2values(two)$value[mod2values(two)$est],
              crossprod = se_type("crossprod"), sandwich = se_type("sandwich"))
}
if (part == "fixed") {
  set.seed(1234)
  a <- matrix(rlnorm(20, 0.2, 0.3))
  d <- matrix(rnorm(20))
  dat1 <- simdata(a, d, 800, itemtype = "dich")
  dat2 <- simdata(a, d, 800, itemtype = "dich", mu = 0.5, sigma = matrix(1.5))
  colnames(dat1) <- colnames(dat2) <- paste0("Item", 1:20)
  old <- mirt(dat1[, 1:12], 1, verbose = FALSE)
  # the new form: items 5..20 (5..12 the anchors); the old items it lacks as NA placeholders, at the end
  new <- cbind(dat2[, 5:20], matrix(NA_real_, 800, 4, dimnames = list(NULL, paste0("Item", 1:4))))
  invisible(capture.output(fc <- fixedCalib(new, model = 1, old_mod = old)))
  invisible(capture.output(fc_nwu <- fixedCalib(new, model = 1, old_mod = old, PAU = "NWU", NEMC = "OEM")))
  cf <- coef(fc, simplify = TRUE)
  out <- list(dat1 = as.vector(dat1), dat2 = as.vector(dat2), loglik = extract.mirt(fc, "logLik"),
              a = unname(cf$items[, "a1"]), d = unname(cf$items[, "d"]), mean = unname(cf$means),
              var = unname(as.vector(cf$cov)), nwu_loglik = extract.mirt(fc_nwu, "logLik"),
              nwu_d = unname(coef(fc_nwu, simplify = TRUE)$items[, "d"]), names = colnames(new))
}
if (part == "mixed") {
  set.seed(1234)
  N <- 750
  a <- matrix(rlnorm(10, .3, 1), 10, 1)
  d <- matrix(rnorm(10), 10)
  Theta <- matrix(sort(rnorm(N)))
  pseudoIQ <- Theta * 5 + 100 + rnorm(N, 0, 5)
  group <- rep(c("G1", "G2", "G3"), each = N / 3)
  data <- simdata(a, d, N, itemtype = rep("2PL", 10), Theta = Theta)
  covdata <- data.frame(group, pseudoIQ)
  mod <- mixedmirt(data, covdata, 1, fixed = ~ 0 + items + group, verbose = FALSE)
  fixed <- summary(mod, verbose = FALSE)$fixed
  set.seed(5); re <- randef(mod, ndraws = 60, thin = 3)
  itemdesign <- data.frame(difficulty = factor(rep(c("easy", "hard"), each = 5)))
  lltm <- mirt(data, 1, "Rasch", item.formula = ~ 0 + difficulty, itemdesign = itemdesign, SE = TRUE, verbose = FALSE)
  first <- coef(lltm, printSE = TRUE)[[1]]
  by_design <- mixedmirt(data, NULL, 1, fixed = ~ 0 + difficulty, itemdesign = itemdesign, verbose = FALSE)
  out <- list(data = as.vector(data), group = group, pseudoIQ = as.vector(pseudoIQ),
              loglik = extract.mirt(mod, "logLik"), fixef = fixed$Estimate, fixef_se = fixed$Std.Error,
              fixef_names = rownames(fixed), theta_cov = summary(mod, verbose = FALSE)$random$Theta[1, 1],
              randef_theta = as.vector(re$Theta),
              lltm_loglik = extract.mirt(lltm, "logLik"), lltm_fixef = unname(first[1, c("difficultyeasy", "difficultyhard")]),
              lltm_se = unname(first[2, c("difficultyeasy", "difficultyhard")]),
              design_loglik = extract.mirt(by_design, "logLik"),
              design_fixef = summary(by_design, verbose = FALSE)$fixed$Estimate,
              design_se = summary(by_design, verbose = FALSE)$fixed$Std.Error)
}
if (part == "random") {
  covdat <- data.frame(group = rep(paste0("G", 1:20), length.out = nrow(Science)))
  m <- mixedmirt(Science, covdat, 1, draws = 10, random = ~ 1 | group, itemtype = "graded", verbose = FALSE,
                 SE = FALSE)
  set.seed(3); re <- randef(m, ndraws = 30, thin = 3)
  out <- list(group = covdat$group, loglik = extract.mirt(m, "logLik"), values = mod2values(m)$value,
              cov_group = summary(m, verbose = FALSE)$random$group[1, 1], randef_group = as.vector(re$group),
              randef_levels = rownames(re$group))
}
writeLines(toJSON(out, digits = NA, auto_unbox = TRUE), args[2])
