# Reference for tests/calibration/test_options.py: the arguments mirt's and ltm's fitting functions read
# (their formals, and those of mirt's estimation routines they hand `...` to).
#   Rscript tests/r/reference_options.R OUT.json
suppressPackageStartupMessages({ library(mirt); library(ltm); library(jsonlite) })
args <- commandArgs(trailingOnly = TRUE)
f <- function(fun) setdiff(names(formals(fun)), "...")
estimation <- union(f(mirt:::ESTIMATION), f(mirt:::makeopts))
out <- list(mirt = union(f(mirt::mirt), estimation), multipleGroup = union(f(mirt::multipleGroup), estimation),
            rasch = f(ltm::rasch), ltm = f(ltm::ltm), tpm = f(ltm::tpm), grm = f(ltm::grm), gpcm = f(ltm::gpcm))
writeLines(toJSON(out), args[1])
