# `make demo`: build the examples and run mmult (interpreter vs compiled).
# `make test`: the test suite (CPU path, and the GPU path through OpenCL on the probed CPU
# device: PoCL's, else Intel's CPU runtime; the test extra installs both).
# Both create the virtual environment .venv and install what they need: the demo unpy alone
# (numpy, gast, pybind11), the tests also the extras gpu, test and bench (about 1.6 GB).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export UNPY_CACHE_DIR ?= $(CURDIR)/.unpy-cache
# Two pytest workers share the cores with each call's OpenMP threads: idle threads sleep.
export OMP_WAIT_POLICY ?= passive

.PHONY: venv venv-test demo test bench-cpu clean

venv: $(VENV)/.installed-demo
venv-test: $(VENV)/.installed-test

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# The demo's install is already there when the tests' is.
$(VENV)/.installed-demo: pyproject.toml | $(VENV)/bin/python
	if [ ! $(VENV)/.installed-test -nt pyproject.toml ]; then $(PY) -m pip install -q -e .; fi
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[gpu,test,bench]'
	touch $@

demo: venv
	$(VENV)/bin/unpy build examples/mmult.py examples/nbody.py examples/cp.py \
		examples/syrk.py examples/syr2k.py examples/stencil.py examples/jacobi2d.py
	$(PY) examples/mmult.py

test: venv-test
	$(PY) -m pytest -q -n 2 tests

bench-cpu: venv-test
	$(PY) bench/cpu.py

clean:
	rm -rf .unpy-cache examples/*.so build *.egg-info
