# Multiple-group calibration (mirt::multipleGroup) and DIF (mirt::DIF). Groups, item names and
# invariance keywords arrive as data; results go back as plain per-group tables.

irtb_mirt_groups <- function(data, item_names, group, model, invariance, se, options) {
  data <- irtb_matrix(data, item_names)
  args <- c(list(data = data, model = 1, group = as.character(group), itemtype = unname(irtb_mirt_itemtype[model]),
                 invariance = as.character(invariance), SE = se, verbose = FALSE), options)
  kept <- irtb_fit_keeping_estimates(mirt::multipleGroup, args, se)
  fit <- kept$fit
  se_problem <- kept$se_problem
  cf <- mirt::coef(fit, IRTpars = TRUE, simplify = TRUE)
  names_ <- mirt::extract.mirt(fit, "groupNames")
  c(list(
    groups = names_,
    items = unname(lapply(names_, function(g) cf[[g]]$items)),
    means = vapply(names_, function(g) unname(cf[[g]]$means[1]), 0),
    vars = vapply(names_, function(g) unname(cf[[g]]$cov[1, 1]), 0),
    sizes = vapply(names_, function(g) sum(group == g), 0),
    se_problem = se_problem
  ), irtb_mirt_result_common(fit))
}

irtb_mirt_dif <- function(fit, which, scheme, items, p_adjust) {
  args <- list(fit, which.par = as.character(which), scheme = scheme, p.adjust = p_adjust, verbose = FALSE)
  if (!is.null(items)) args$items2test <- as.character(items)
  res <- do.call(mirt::DIF, args)
  res <- as.data.frame(res)
  res$item <- rownames(res)
  rownames(res) <- NULL
  res
}
