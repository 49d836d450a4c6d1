# Install (or check) the CRAN packages pinned in irtbridge/_r/R/packages.lock (the one lock file: the
# package ships it for `irtbridge doctor`).
#
#   Rscript r/install.R           install what is missing or at another version, then check
#   Rscript r/install.R --check   only check; exit status 1 when anything is missing or wrong
#
# Debian's r-cran-* rows are installed by tools/setup.sh through apt; this script builds the CRAN
# rows from source at exactly the locked version and verifies that every locked package loads at its
# locked version. It fails loudly: any failed download, build or check stops with a non-zero status.

args <- commandArgs(trailingOnly = TRUE)
check_only <- "--check" %in% args
repos <- Sys.getenv("IRTBRIDGE_CRAN", "https://cloud.r-project.org")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)))
lock_file <- file.path(here, "..", "irtbridge", "_r", "R", "packages.lock")
lock <- read.delim(lock_file, comment.char = "#", colClasses = "character")

installed_version <- function(p) {
  v <- tryCatch(as.character(packageVersion(p)), error = function(e) NA_character_)
  v
}
same_version <- function(a, b) !is.na(a) && numeric_version(a, strict = FALSE) == numeric_version(b, strict = FALSE)

fetch <- function(pkg, version, dir) {
  file <- file.path(dir, sprintf("%s_%s.tar.gz", pkg, version))
  urls <- c(sprintf("%s/src/contrib/%s_%s.tar.gz", repos, pkg, version),
            sprintf("%s/src/contrib/Archive/%s/%s_%s.tar.gz", repos, pkg, pkg, version))
  for (u in urls) {
    ok <- tryCatch(utils::download.file(u, file, quiet = TRUE, mode = "wb") == 0, error = function(e) FALSE,
                   warning = function(w) FALSE)
    if (ok) return(file)
  }
  stop(sprintf("CRAN does not serve %s %s (tried %s). Re-resolve the lock with `Rscript r/lock.R`.",
               pkg, version, paste(urls, collapse = " and ")), call. = FALSE)
}

cran <- lock[lock$source == "cran", ]
if (!check_only) {
  todo <- cran[!mapply(same_version, vapply(cran$package, installed_version, ""), cran$version), ]
  if (nrow(todo)) {
    dir <- file.path(tempdir(), "irtbridge-cran")
    dir.create(dir, showWarnings = FALSE)
    tarballs <- setNames(mapply(fetch, todo$package, todo$version, MoreArgs = list(dir = dir)), todo$package)
    needs <- lapply(todo$package, function(p) {
      untar(tarballs[[p]], files = file.path(p, "DESCRIPTION"), exdir = dir)
      d <- read.dcf(file.path(dir, p, "DESCRIPTION"))
      fields <- intersect(c("Depends", "Imports", "LinkingTo"), colnames(d))
      names <- trimws(sub("\\(.*", "", unlist(strsplit(gsub("\n", " ", d[1, fields]), ","))))
      intersect(names, todo$package)
    })
    names(needs) <- todo$package
    done <- character()
    while (length(done) < nrow(todo)) {
      ready <- setdiff(names(needs)[vapply(needs, function(n) all(n %in% done), TRUE)], done)
      if (!length(ready)) stop("circular dependency among: ", paste(setdiff(todo$package, done), collapse = ", "))
      for (p in ready) {
        message(sprintf("irtbridge setup: building %s %s from CRAN", p, todo$version[todo$package == p]))
        utils::install.packages(tarballs[[p]], repos = NULL, type = "source", quiet = TRUE)
        if (!same_version(installed_version(p), todo$version[todo$package == p]))
          stop(sprintf("building %s %s failed (see the compiler output above)", p, todo$version[todo$package == p]),
               call. = FALSE)
        done <- c(done, p)
      }
    }
  }
}

status <- vapply(seq_len(nrow(lock)), function(i) {
  p <- lock$package[i]
  v <- installed_version(p)
  if (is.na(v)) return("MISSING")
  if (!same_version(v, lock$version[i])) return(sprintf("WRONG VERSION %s", v))
  ok <- tryCatch({ suppressPackageStartupMessages(loadNamespace(p)); TRUE }, error = function(e) conditionMessage(e))
  if (isTRUE(ok)) "OK" else paste("DOES NOT LOAD:", ok)
}, "")
bad <- status != "OK"
if (any(bad)) {
  cat(sprintf("  %-16s %-12s %-7s %s\n", lock$package[bad], lock$version[bad], lock$source[bad], status[bad]), sep = "")
  stop(sprintf("%d of %d locked R packages are not as locked", sum(bad), nrow(lock)), call. = FALSE)
}
cat(sprintf("irtbridge setup: all %d locked R packages load at their locked versions\n", nrow(lock)))
