# The call envelope: every call from Python runs through irtb_call(). Loaded (with the other irtb_*.R
# files) into one private environment per R session, never into the global environment.

# Run the helper `fun` (a name in this environment) with `args` (a named list). Returns a list:
#   ok, value               the helper's value when it succeeded
#   error, error_class, call   R's error message, condition classes and the failing call otherwise
#   warnings, messages, output R's warnings and messages (muffled here, re-raised by Python) and anything
#                              printed to the console (kept off the terminal)
irtb_call <- function(fun, args) {
  warnings <- character()
  messages <- character()
  f <- get(fun, envir = parent.env(environment()), mode = "function")
  result <- NULL
  output <- utils::capture.output(
    result <- withCallingHandlers(
      tryCatch(
        list(ok = TRUE, value = do.call(f, args)),
        error = function(e) {
          call <- conditionCall(e)
          list(ok = FALSE, error = conditionMessage(e), error_class = class(e),
               call = if (is.null(call)) "" else paste(deparse(call, nlines = 1L), collapse = ""))
        }
      ),
      warning = function(w) {
        # code that runs under options(warn = 2) (e.g. inside try()) relies on R turning the warning
        # into an error: let R do that instead of muffling it
        if (getOption("warn") >= 2) return(invisible())
        warnings <<- c(warnings, conditionMessage(w))
        invokeRestart("muffleWarning")
      },
      message = function(m) {
        messages <<- c(messages, sub("\n$", "", conditionMessage(m)))
        invokeRestart("muffleMessage")
      }
    ),
    type = "output"
  )
  c(result, list(warnings = warnings, messages = messages, output = output))
}

# Versions of R and of the named packages (NA when a package is not installed).
irtb_versions <- function(packages) {
  v <- vapply(packages, function(p) {
    if (!nzchar(system.file(package = p))) return(NA_character_)
    as.character(utils::packageVersion(p))
  }, "")
  list(r = paste(R.version$major, R.version$minor, sep = "."), packages = v)
}

# NaN from numpy becomes NA so every R package treats it as missing; names travel as objects.
irtb_matrix <- function(x, colnames) {
  x[is.nan(x)] <- NA
  dimnames(x) <- list(NULL, colnames)
  x
}

# A dataset shipped with an R package, as a plain data.frame (factors as character).
irtb_dataset <- function(package, name) {
  if (!requireNamespace(package, quietly = TRUE)) stop(sprintf("R package '%s' is not installed", package))
  env <- new.env()
  utils::data(list = name, package = package, envir = env)
  if (!exists(name, envir = env, inherits = FALSE)) stop(sprintf("package '%s' has no dataset '%s'", package, name))
  d <- as.data.frame(get(name, envir = env))
  for (j in seq_along(d)) if (is.factor(d[[j]])) d[[j]] <- as.character(d[[j]])
  d
}

# Classic response matrices, one row per respondent (see irtbridge.example_data.RESPONSE_DATASETS).
irtb_response_dataset <- function(package, name, kind) {
  d <- irtb_dataset(package, name)
  if (kind == "table") {
    d <- mirt::expand.table(d)
  } else if (kind == "key") {
    # the SAT12 key printed in mirt's ?SAT12; 8 codes a missing response
    key <- c(1, 4, 5, 2, 3, 1, 2, 1, 3, 1, 2, 4, 2, 1, 5, 3, 4, 4, 1, 4, 3, 3, 4, 1, 3, 5, 1, 3, 1, 5, 4, 5)
    raw <- as.matrix(d)
    raw[raw == 8] <- NA
    d <- as.data.frame(mirt::key2binary(raw, key))
  }
  d <- as.data.frame(lapply(d, as.numeric), check.names = FALSE)
  rownames(d) <- NULL
  d
}
