# The newcomer path: `make evaluate` (the main job on embedded data) and `make test`.
# Both run setup first when it has not run since the lock file, pyproject.toml or the script changed.
VENV := .venv
STAMP := $(VENV)/.irtbridge-setup
PY := $(VENV)/bin/python

.PHONY: setup evaluate test test-fast bench lock clean container-test docs lint

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

# linters and the type checker on the package (configured in .flake8 and pyproject.toml)
lint: $(STAMP)
	$(VENV)/bin/python -m flake8 irtbridge
	$(VENV)/bin/python -m mypy
