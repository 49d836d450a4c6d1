# One R, its packages loaded once, that runs the test suite's reference scripts as Rscript would
# (tests/_rrefs.py: IRTBRIDGE_R_REFS=check in CI and make refs-check, record in make refs). Loading mirt
# takes about 2.4 s in every new R; here each script runs in a forked copy of this R instead,
# so it starts with the namespaces already loaded and leaves nothing behind in this process.
#   Rscript tests/r/forkserver.R PACKAGE...      (the namespaces to load first)
# Once ready it writes R.home() on a line of stdout, then reads one JSON request a line on stdin:
# {"script": FILE or null, "code": TEXT or null, "args": [...], "cwd": DIR, "set": {NAME: VALUE},
# "unset": [NAME], "out": FILE, "err": FILE}, and answers with the run's exit status on a line of stdout.
# The run's standard output goes to "out", its messages and errors to "err".
#
# A run is Rscript's: each top-level expression of the script (or of the -e code) is evaluated in turn and
# its value printed when visible; commandArgs(TRUE) gives "args"; an error prints "Error..." and
# "Execution halted" and ends the run with status 1; quit(status = s) ends it with status s. This process
# runs nothing but this loop (no threads, nothing else of R's running), which is what makes forking it
# (parallel::mcparallel, R's own fork) safe; irtbridge's own R, inside Python, is never forked.

for (package in commandArgs(trailingOnly = TRUE)) suppressPackageStartupMessages(loadNamespace(package))
requests <- file("stdin", open = "r")
cat(R.home(), "\n", sep = "")  # ready: the first line says which R this is
flush(stdout())

irtb_quit_condition <- function(status) {
  structure(class = c("irtb_quit", "condition"), list(message = "quit", call = NULL, status = as.integer(status)))
}

irtb_as_rscript <- function(request) {
  out <- file(request$out, open = "wt")
  err <- file(request$err, open = "wt")
  sink(out)
  sink(err, type = "message")
  setwd(request$cwd)
  if (length(request$set)) do.call(Sys.setenv, request$set)
  if (length(request$unset)) Sys.unsetenv(unlist(request$unset))
  args <- as.character(unlist(request$args))
  here <- new.env(parent = globalenv())
  here$commandArgs <- function(trailingOnly = FALSE) {
    if (trailingOnly) args else c("R", "--no-echo", "--no-restore", "--args", args)
  }
  here$quit <- here$q <- function(save = "default", status = 0, runLast = TRUE) stop(irtb_quit_condition(status))
  status <- tryCatch({
    code <- if (is.null(request$script)) parse(text = request$code, keep.source = FALSE)
            else parse(request$script, keep.source = FALSE)
    # no handler of warnings here: one would change what code under options(warn = 2) does (ltm's tpm turns
    # glm.fit's warnings into errors that way to choose its starting values). So the warnings that Rscript
    # prints at the end are not printed.
    for (expression in code) {
      shown <- withVisible(eval(expression, here))
      if (shown$visible) if (isS4(shown$value)) methods::show(shown$value) else print(shown$value)
    }
    0L
  }, irtb_quit = function(condition) condition$status, error = function(condition) {
    call <- conditionCall(condition)
    top <- is.null(call) || identical(call, quote(eval(expression, here)))  # stop() at the script's top level
    where <- if (top) ": " else paste0(" in ", paste(deparse(call), collapse = "\n"), " : ")
    cat("Error", where, conditionMessage(condition), "\nExecution halted\n", sep = "", file = stderr())
    1L
  })
  sink(type = "message")
  sink()
  close(err)
  close(out)
  status
}

repeat {
  line <- readLines(requests, n = 1L)
  if (!length(line)) break
  request <- jsonlite::fromJSON(line, simplifyVector = FALSE)
  job <- parallel::mcparallel(irtb_as_rscript(request), silent = TRUE)
  status <- parallel::mccollect(job)[[1L]]
  # a run that ended its process (a crash, or a package calling quit itself) returns nothing: status 1
  cat(if (is.integer(status) && length(status) == 1L) status else 1L, "\n", sep = "")
  flush(stdout())
}
