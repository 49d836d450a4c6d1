# The typed passthrough (irtbridge.mirt, irtbridge.ltm): any exported function of a package, called by
# its name with a list of arguments. The package, the name and every argument arrive as R objects (data);
# the function is taken from the namespace's exports with getExportedValue, never parsed from text.

# The exported functions of `pkg`, sorted (S4 class and method-table entries left out).
irtb_pass_exports <- function(pkg) {
  if (!requireNamespace(pkg, quietly = TRUE)) stop(sprintf("R package '%s' is not installed", pkg))
  names_ <- getNamespaceExports(pkg)
  names_ <- names_[!startsWith(names_, ".__")]
  is_fun <- vapply(names_, function(n) is.function(getExportedValue(pkg, n)), TRUE)
  sort(names_[is_fun])
}

# The argument names a call of `f` with first argument `x` can take: the function's own formals, plus
# those of the method that would run for `x` (an S4 method's .local function, an S3 method).
irtb_pass_formals <- function(f, name, x) {
  out <- names(formals(f))
  if (missing(x)) return(out)
  unique(c(out, irtb_pass_method_formals(f, name, class(x))))
}

# The formals of the method of `f` (named `name`) that R dispatches to for an object of class `cls`
# (empty when `f` is not generic or has no such method).
irtb_pass_method_formals <- function(f, name, cls) {
  out <- character()
  if (methods::is(f, "standardGeneric")) {
    m <- methods::selectMethod(name, cls, optional = TRUE, fdef = f)
    if (!is.null(m)) {
      out <- c(out, names(formals(m)))
      b <- body(m)
      # a method whose arguments differ from the generic's wraps them in `.local <- function(...)`
      if (is.call(b) && length(b) >= 2L && is.call(b[[2]]) && identical(b[[2]][[1]], as.name("<-")) &&
          identical(b[[2]][[2]], as.name(".local")) && is.function(b[[2]][[3]]))
        out <- c(out, names(formals(b[[2]][[3]])))
    }
  } else if (is.function(f) && !is.primitive(f) && "UseMethod" %in% all.names(body(f))) {
    for (cl in cls) {
      # looked up from the generic's namespace: the package need not be attached
      m <- utils::getS3method(name, cl, optional = TRUE, envir = environment(f))
      if (!is.null(m)) {
        out <- c(out, names(formals(m)))
        break
      }
    }
  }
  out
}

# The names a call's `...` hands on (beyond `extra`): the formals of each function of `forward` (pkg's
# exports, e.g. fscores for itemfit), and, for a multiple-group fit `x` when `per_group`, those of the
# method each group's SingleGroupClass answers (a MultipleGroupClass method calls it on every group).
irtb_pass_forwarded <- function(pkg, name, f, x, forward = character(), per_group = FALSE) {
  out <- character()
  if (isTRUE(per_group) && !is.null(x) && methods::is(x, "MultipleGroupClass"))
    out <- c(out, irtb_pass_method_formals(f, name, "SingleGroupClass"))
  for (g in forward) out <- c(out, names(formals(getExportedValue(pkg, g))))
  setdiff(unique(out), "...")
}

# The argument names irtb_pass_call(check = TRUE) lets through for pkg::name with first argument `x`
# (NULL: none): the formals of the function or the method R dispatches to, less `...`.
irtb_pass_accepted <- function(pkg, name, x = NULL) {
  f <- getExportedValue(pkg, name)
  setdiff(if (is.null(x)) irtb_pass_formals(f, name) else irtb_pass_formals(f, name, x), "...")
}

# Call pkg::name with `args` (a list; empty names are positional). A named argument that is not a formal
# of the function (or of the method that will run) but whose underscores read as dots is one
# (full_scores -> full.scores); `verbose` defaults to FALSE where the function has it; `seed` is the
# function's own argument where it has one, else set.seed(seed) just before the call.
# With `check`, a named argument that no formal takes (`...` aside) and that is not one of `extra` (the
# names the function's `...` hands on, e.g. mirt()'s estimation options; with `forward`, the formals of the
# functions its `...` reaches, e.g. fscores for itemfit; with `per_group`, those of each group's method for a
# multiple-group fit) is not passed: the call is not
# made and the result is a list of class "irtb_unknown_arguments" (those names, and the formals) for
# Python to refuse with close matches.
irtb_pass_call <- function(pkg, name, args, check = FALSE, extra = character(), forward = character(),
                           per_group = FALSE) {
  if (!requireNamespace(pkg, quietly = TRUE)) stop(sprintf("R package '%s' is not installed", pkg))
  f <- getExportedValue(pkg, name)
  given <- names(args)
  if (is.null(given)) given <- rep("", length(args))
  positional <- which(!nzchar(given))
  first <- if (length(positional)) positional[1L] else if (length(args)) 1L else 0L
  formal <- if (first) irtb_pass_formals(f, name, args[[first]]) else irtb_pass_formals(f, name)
  # what `...` hands on counts as `extra` (never for verbose and seed below: those read the function's own)
  extra <- c(unlist(extra), irtb_pass_forwarded(pkg, name, f, if (first) args[[first]] else NULL, unlist(forward),
                                                per_group))
  dotted <- gsub("_", ".", given, fixed = TRUE)
  # (the names `...` hands on count as the function's own: survey_weights -> survey.weights for mirt())
  swap <- nzchar(given) & !(given %in% formal) & dotted %in% c(formal, unlist(extra))
  given[swap] <- dotted[swap]
  names(args) <- given
  if (check) {
    known <- c(setdiff(formal, "..."), unlist(extra), "seed")
    unknown <- nzchar(given) & !(given %in% known)
    if (any(unknown))
      return(structure(list(unknown = names(args)[unknown], formals = c(setdiff(formal, "..."), unlist(extra))),
                       class = "irtb_unknown_arguments"))
  }
  seed <- NULL
  if ("seed" %in% given && !("seed" %in% formal)) {
    seed <- args[["seed"]]
    args[["seed"]] <- NULL
  }
  if ("verbose" %in% formal && !("verbose" %in% given)) args$verbose <- FALSE
  if (!is.null(seed)) set.seed(seed)
  # the call reads `name(...)` in R's error messages: the function is bound to its own name in a
  # throwaway environment whose parent is the package namespace
  env <- new.env(parent = asNamespace(pkg))
  assign(name, f, envir = env)
  do.call(name, args, envir = env)
}

# What irtbridge needs to hold a fitted single-group mirt model as a Calibration: the fit helper's layout
# (irtb_mirt_result) plus the response data, item names and item types read from the model.
irtb_pass_mirt_model <- function(fit) {
  se <- isTRUE(fit@Options$SE) && length(fit@vcov) > 1L && !anyNA(fit@vcov)
  out <- irtb_mirt_result(fit, se)
  if (se && isFALSE(fit@OptimInfo$secondordertest)) out$se <- NULL
  data <- mirt::extract.mirt(fit, "data")
  c(out, list(data = unname(data), item_names = colnames(data), itemtype = mirt::extract.mirt(fit, "itemtype"),
              ncat = unname(mirt::extract.mirt(fit, "K")), se_done = se,
              seconds = unname(mirt::extract.mirt(fit, "time")[1])))
}
