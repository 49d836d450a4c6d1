# Test-only R helper, sourced into the bridge's session by tests/calibration/test_calibration.py.
# Test probe for the envelope: does a warning raised under options(warn = 2) still become an error?
irtb_escalation_probe <- function() {
  old <- options(warn = 2)
  on.exit(options(old))
  r <- try(warning("escalate me"), silent = TRUE)
  if (inherits(r, "try-error")) "error" else "muffled"
}
