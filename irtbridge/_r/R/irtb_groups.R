# Multiple-group calibration (mirt::multipleGroup), what a group fit offers (scores, fit, reliability,
# one group taken out) and DIF (mirt::DIF). Groups, item names, invariance keywords and model syntax
# arrive as data; results go back as plain per-group tables.

# The multipleGroup() arguments of a fit: the structure (dims, or mirt.model text received as data),
# the item types, the groups, invariance and the caller's estimation options.
irtb_group_args <- function(data, item_names, group, itemtype, invariance, options, dims, syntax) {
  structure <- if (is.null(syntax)) as.integer(dims) else mirt::mirt.model(syntax, itemnames = item_names)
  c(list(data = irtb_matrix(data, item_names), model = structure, group = as.character(group),
         itemtype = itemtype, invariance = as.character(invariance), verbose = FALSE),
    options)
}

# Only what the pre-fit name check reads (irtbridge.calibration.inputs.checks), over every group.
irtb_mirt_group_names <- function(data, item_names, group, itemtype, invariance, options, dims = 1L, syntax = NULL) {
  args <- irtb_group_args(data, item_names, group, itemtype, invariance, options, dims, syntax)
  irtb_plain_table(do.call(mirt::multipleGroup, c(args, list(pars = "values"))))[c("group", "item", "name", "est")]
}

irtb_mirt_groups <- function(data, item_names, group, itemtype, invariance, se, options, priors = list(),
                             dims = 1L, syntax = NULL, table = NULL) {
  args <- c(irtb_group_args(data, item_names, group, itemtype, invariance, options, dims, syntax), list(SE = se))
  if (length(priors) || !is.null(table)) args <- irtb_apply_pars(mirt::multipleGroup, args, priors, table)
  kept <- irtb_fit_keeping_estimates(mirt::multipleGroup, args, se)
  irtb_mirt_groups_result(kept$fit, group, se, irtb_second_order_problem(kept$fit, se, kept$se_problem))
}

# Per-group item tables (IRT parameterization where mirt has one), their SEs, latent means, covariances
# and group sizes, from a fitted multipleGroup model.
irtb_mirt_groups_result <- function(fit, group, se, se_problem = NULL) {
  names_ <- mirt::extract.mirt(fit, "groupNames")
  # one factor: the IRT parameterization where mirt has one; several: slope-intercept (as calibrate)
  irt <- mirt::extract.mirt(fit, "nfact") == 1L
  cf <- if (irt) tryCatch(mirt::coef(fit, IRTpars = TRUE, simplify = TRUE), error = function(e) NULL)
  if (is.null(cf)) {
    irt <- FALSE
    cf <- mirt::coef(fit, simplify = TRUE)
  }
  ses <- NULL
  if (se && is.null(se_problem)) {
    per_group <- mirt::coef(fit, IRTpars = irt, printSE = TRUE)
    ses <- unname(lapply(names_, function(g) irtb_group_ses(per_group[[g]], cf[[g]]$items)))
  }
  group <- as.character(group)
  c(list(
    groups = names_,
    items = unname(lapply(names_, function(g) cf[[g]]$items)),
    se = ses,
    means = unname(lapply(names_, function(g) cf[[g]]$means)),
    covs = unname(lapply(names_, function(g) cf[[g]]$cov)),
    sizes = vapply(names_, function(g) sum(group == g), 0),
    se_problem = se_problem
  ), irtb_mirt_result_common(fit))
}

# A fitted multipleGroup model as calibrate_groups would have returned it (irtbridge.mirt's results),
# with what the Python side needs to describe it: data, groups, item names and types, invariance.
irtb_pass_mirt_groups <- function(fit) {
  group <- as.character(mirt::extract.mirt(fit, "group"))
  se_done <- isTRUE(fit@Options$SE) && length(fit@vcov) > 1L
  c(irtb_mirt_groups_result(fit, group, se_done),
    list(data = mirt::extract.mirt(fit, "data"), membership = group,
         item_names = mirt::extract.mirt(fit, "itemnames"), itemtype = mirt::extract.mirt(fit, "itemtype"),
         ncat = unname(mirt::extract.mirt(fit, "K")), invariance = as.character(fit@Model$invariance),
         se_done = se_done, seconds = unname(mirt::extract.mirt(fit, "time")[1])))
}

# One group's standard errors laid out like its item table (NA where mirt reports none).
irtb_group_ses <- function(per_item, items) {
  ses <- items
  ses[] <- NA_real_
  for (i in seq_len(nrow(items))) {
    m <- per_item[[rownames(items)[i]]]
    cols <- intersect(colnames(m), colnames(ses))
    if ("SE" %in% rownames(m)) ses[i, cols] <- m["SE", cols]
  }
  ses
}

irtb_mirt_extract_group <- function(fit, group) mirt::extract.group(fit, group)

# Per group: marginal reliability of its latent distribution (marginal_rxx on the group taken out) and
# the empirical reliability of its respondents' EAP scores from the multiple-group fit.
irtb_group_reliability <- function(fit) {
  names_ <- mirt::extract.mirt(fit, "groupNames")
  member <- as.character(mirt::extract.mirt(fit, "group"))
  s <- mirt::fscores(fit, method = "EAP", full.scores.SE = TRUE, verbose = FALSE)
  list(groups = names_,
       marginal = vapply(names_, function(g) unname(mirt::marginal_rxx(mirt::extract.group(fit, g))), 0),
       empirical = vapply(names_, function(g) unname(mirt::empirical_rxx(s[member == g, , drop = FALSE])), 0))
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
