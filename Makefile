# The newcomer path: `make evaluate` (the main job on embedded data) and `make test`.
# Both run setup first when it has not run since the lock file, pyproject.toml or the script changed.
VENV := .venv
STAMP := $(VENV)/.irtbridge-setup
PY := $(VENV)/bin/python

.PHONY: setup evaluate test test-fast refs refs-check bench lock clean container-test docs lint

$(STAMP): tools/setup.sh irtbridge/_r/R/packages.lock r/install.R pyproject.toml
	bash tools/setup.sh
	touch $(STAMP)

setup:
	bash tools/setup.sh
	touch $(STAMP)

evaluate: $(STAMP)
	$(VENV)/bin/irtbridge evaluate $(ARGS)

# every test, on both cores: two pytest-xdist workers, each with its own R (the tests sharing a module fixture
# or an xdist_group run on one worker; the longest of them are handed out first: tests/durations.txt, or, where R
# computes every reference again (IRTBRIDGE_R_REFS=check in CI and refs-check, make refs), tests/durations-check.txt)
XDIST := -n 2 --dist loadgroup
# Each worker rewrites the asserts of every test module it collects; pytest keeps the result as bytecode, unless
# PYTHONDONTWRITEBYTECODE is set: then every worker redoes it at every run (measured: collection 10.2 s -> 5.6 s
# a worker with the bytecode kept). __pycache__/ is ignored by git.
PYTEST := PYTHONDONTWRITEBYTECODE= $(PY) -m pytest
test: $(STAMP)
	$(PYTEST) $(XDIST) $(PYTEST_ARGS)

# the inner loop: no R, nothing slow
test-fast: $(STAMP)
	$(PYTEST) $(XDIST) -m "not r and not slow" $(PYTEST_ARGS)

# The R reference numbers the tests compare with (tests/r/refs/, one file per test module, stamped with the
# lock's hash; tests/_rrefs.py): `make refs` runs R for every reference and stores what it returns (after a
# change of irtbridge/_r/R/packages.lock, of an R script under tests/r/ or of a test's data); `make refs-check`
# runs R again and compares with the stored ones (CI does), writing nothing.
REF_TESTS = $(shell grep -rlw --include='test_*.py' run_r tests | grep -v '^tests/test_r_refs.py$$' | sort)
refs: $(STAMP)
	rm -rf tests/r/refs.new
	IRTBRIDGE_R_REFS=record IRTBRIDGE_R_REFS_DIR=$(CURDIR)/tests/r/refs.new $(PYTEST) $(XDIST) -q -p no:cacheprovider $(REF_TESTS)
	rm -rf tests/r/refs && mv tests/r/refs.new tests/r/refs

refs-check: $(STAMP)
	IRTBRIDGE_R_REFS=check $(PYTEST) $(XDIST) -q -p no:cacheprovider $(PYTEST_ARGS) $(REF_TESTS)

bench: $(STAMP)
	for b in speed/*.py; do $(PY) $$b || exit 1; done

lock:
	Rscript r/lock.R

# build the image (buildah, or docker where an engine runs) and run doctor, evaluate --quick and batch in it
container-test:
	bash tools/container-test.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache

# the API reference site (Sphinx + numpydoc; warnings are errors): docs/_build/html/index.html
docs: $(STAMP)
	rm -rf docs/_build docs/api/generated
	$(VENV)/bin/python -m sphinx -q -W --keep-going -b html docs docs/_build/html
	touch docs/_build/html/.irtbridge-built  # built without a warning: tests/test_docs.py reads this build

# linters and the type checker on the package (configured in .flake8 and pyproject.toml)
lint: $(STAMP)
	$(VENV)/bin/python -m flake8 irtbridge
	$(VENV)/bin/python -m mypy
