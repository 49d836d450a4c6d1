# Maintainer tool: resolve the R packages irtbridge needs into irtbridge/_r/R/packages.lock (the one lock
# file: setup, r/install.R and the Dockerfile install from it, and the package ships it for `irtbridge doctor`).
#
#   Rscript r/lock.R            (needs `apt-get update` and network access to CRAN)
#
# Policy: the packages irtbridge calls (TARGETS) come from CRAN at their current release; every other
# dependency comes from Debian's r-cran-* binaries when Debian's version satisfies every version
# constraint of the CRAN-built packages, and from CRAN otherwise. The constraints are re-collected
# until nothing moves (a package pulled to CRAN may bring stricter constraints of its own).
# The lock is a tab-separated table: package, version, source (cran|debian), debian package name.

# nanoparquet: parquet details (lighteval, the Open LLM Leaderboard) read where pyarrow cannot be imported
targets <- c("mirt", "ltm", "EstCRM", "catR", "PlayerRatings", "airt", "nanoparquet")
# data-only packages taken from Debian as they are (apt resolves their dependencies): mlbench for the
# benchmark datasets, caret for the German Credit data
debian_targets <- c("mlbench", "caret")
repos <- "https://cloud.r-project.org"

# Releases whose current CRAN version needs a newer R than ours: the last compatible release.
r_compat <- list(Deriv = list(Version = "4.2.0", Imports = "methods"))

ap <- available.packages(repos = repos)
for (p in names(r_compat)) {
  row <- ap[1, , drop = FALSE]
  row[] <- NA
  rownames(row) <- p
  row[1, "Package"] <- p
  for (f in names(r_compat[[p]])) row[1, f] <- r_compat[[p]][[f]]
  ap <- rbind(ap[rownames(ap) != p, , drop = FALSE], row)
}

avail <- system2("apt-cache", "dumpavail", stdout = TRUE)
pk <- sub("^Package: ", "", avail[startsWith(avail, "Package: ")])
vr <- sub("^Version: ", "", avail[startsWith(avail, "Version: ")])
deb <- data.frame(deb = pk, ver = vr)
deb <- deb[startsWith(deb$deb, "r-cran-"), ]
deb$upstream <- sub("^[0-9]+:", "", sub("\\+.*$", "", sub("-[^-]*$", "", deb$ver)))
deb <- deb[order(deb$deb, -rank(numeric_version(gsub("[^0-9.]", ".", deb$upstream), strict = FALSE))), ]
deb <- deb[!duplicated(deb$deb), ]

inst <- installed.packages()
shipped_with_r <- rownames(inst)[!is.na(inst[, "Priority"])]

parse_deps <- function(s) {
  if (is.na(s) || !nzchar(s)) return(data.frame(name = character(), min = character()))
  x <- trimws(strsplit(gsub("\n", " ", s), ",")[[1]])
  name <- trimws(sub("\\(.*", "", x))
  min <- ifelse(grepl(">=", x), trimws(sub(".*>= *([^)]*)\\).*", "\\1", x)), NA)
  data.frame(name = name, min = min)
}
deps_of <- function(p) do.call(rbind, lapply(c("Depends", "Imports", "LinkingTo"), function(f) parse_deps(ap[p, f])))

closure <- character()
todo <- targets
while (length(todo)) {
  p <- todo[1]
  todo <- todo[-1]
  if (p %in% closure) next
  closure <- c(closure, p)
  nx <- intersect(setdiff(deps_of(p)$name, c("R", shipped_with_r, closure)), rownames(ap))
  todo <- c(todo, nx)
}

closure <- union(closure, debian_targets)
deb_of <- function(p) deb[match(paste0("r-cran-", tolower(p)), deb$deb), ]
source <- setNames(ifelse(is.na(deb_of(closure)$deb), "cran", "debian"), closure)
source[targets] <- "cran"
repeat {
  cons <- do.call(rbind, lapply(names(source)[source == "cran"], deps_of))
  cons <- cons[!is.na(cons$min) & cons$name %in% names(source)[source == "debian"], ]
  too_old <- unique(cons$name[mapply(function(n, m) {
    numeric_version(deb_of(n)$upstream, strict = FALSE) < numeric_version(m)
  }, cons$name, cons$min)])
  if (!length(too_old)) break
  source[too_old] <- "cran"
}

# A Debian binary drags in its own Debian dependencies; none of them may shadow a CRAN choice
# (CRAN installs go to the first library path, so they win anyway), which keeps this simple.
lock <- data.frame(
  package = closure,
  version = ifelse(source == "cran", ap[closure, "Version"], deb_of(closure)$upstream),
  source = source,
  debian = ifelse(source == "debian", deb_of(closure)$deb, "-")
)
lock <- lock[order(lock$source, tolower(lock$package)), ]
header <- c("# irtbridge R lock file: written by r/lock.R, read by r/install.R, the Dockerfile and irtbridge doctor.",
            sprintf("# R %s; CRAN %s; resolved %s.", getRversion(), repos, format(Sys.Date())))
out <- "irtbridge/_r/R/packages.lock"
writeLines(header, out)
suppressWarnings(write.table(lock, out, sep = "\t", quote = FALSE, row.names = FALSE, append = TRUE))
cat(sprintf("%d packages: %d from CRAN (%d compiled), %d from Debian -> %s\n", nrow(lock),
            sum(lock$source == "cran"), sum(lock$source == "cran" & ap[lock$package, "NeedsCompilation"] %in% "yes"),
            sum(lock$source == "debian"), out))
