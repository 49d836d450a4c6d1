# Multiple-group calibration (mirt::multipleGroup) and DIF (mirt::DIF). Groups, item names and
# invariance keywords arrive as data; results go back as plain per-group tables.

irtb_mirt_groups <- function(data, item_names, group, model, invariance, se, options) {
  data <- irtb_matrix(data, item_names)
  args <- c(list(data = data, model = 1, group = as.character(group), itemtype = unname(irtb_mirt_itemtype[model]),
                 invariance = as.character(invariance), SE = se, verbose = FALSE), options)
  kept <- irtb_fit_keeping_estimates(mirt::multipleGroup, args, se)
  out <- irtb_mirt_groups_result(kept$fit, group)
  out$se_problem <- kept$se_problem
  out
}

# Per-group item tables (IRT parameterization where mirt has one), latent means, variances and sizes.
irtb_mirt_groups_result <- function(fit, group) {
  cf <- tryCatch(mirt::coef(fit, IRTpars = TRUE, simplify = TRUE),
                 error = function(e) mirt::coef(fit, simplify = TRUE))
  names_ <- mirt::extract.mirt(fit, "groupNames")
  c(list(
    groups = names_,
    items = unname(lapply(names_, function(g) cf[[g]]$items)),
    means = vapply(names_, function(g) unname(cf[[g]]$means[1]), 0),
    vars = vapply(names_, function(g) unname(cf[[g]]$cov[1, 1]), 0),
    sizes = vapply(names_, function(g) sum(group == g), 0)
  ), irtb_mirt_result_common(fit))
}

# A fitted multipleGroup model as calibrate_groups would have returned it (irtbridge.mirt's results).
irtb_pass_mirt_groups <- function(fit) {
  group <- as.character(mirt::extract.mirt(fit, "group"))
  c(irtb_mirt_groups_result(fit, group),
    list(item_names = mirt::extract.mirt(fit, "itemnames"), itemtype = mirt::extract.mirt(fit, "itemtype"),
         ncat = unname(mirt::extract.mirt(fit, "K")), invariance = as.character(fit@Model$invariance),
         se_done = isTRUE(fit@Options$SE) && length(fit@vcov) > 1L,
         seconds = unname(mirt::extract.mirt(fit, "time")[1])))
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
