# The newcomer path: `make evaluate` (the main job on embedded data) and `make test`.
# Both run setup first when it has not run since the lock file, pyproject.toml or the script changed.
VENV := .venv
STAMP := $(VENV)/.irtbridge-setup
PY := $(VENV)/bin/python

.PHONY: setup evaluate test test-fast bench lock clean container-test

$(STAMP): tools/setup.sh irtbridge/_r/R/packages.lock r/install.R pyproject.toml
	bash tools/setup.sh
	touch $(STAMP)

setup:
	bash tools/setup.sh
	touch $(STAMP)

evaluate: $(STAMP)
	$(VENV)/bin/irtbridge evaluate $(ARGS)

test: $(STAMP)
	$(PY) -m pytest $(PYTEST_ARGS)

test-fast: $(STAMP)
	$(PY) -m pytest -m "not r and not slow" $(PYTEST_ARGS)

bench: $(STAMP)
	for b in benchmarks/*.py; do $(PY) $$b || exit 1; done

lock:
	Rscript r/lock.R

# build the image (buildah, or docker where an engine runs) and run doctor, evaluate --quick and batch in it
container-test:
	bash tools/container-test.sh

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache
