# `make demo`: build the examples and run mmult (interpreter vs compiled).
# `make test`: the test suite (CPU path, and the GPU path through OpenCL on the probed CPU
# device: PoCL's, else Intel's CPU runtime; the test extra installs both).
# Both create the virtual environment .venv and install what they need.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
export UNPY_CACHE_DIR ?= $(CURDIR)/.unpy-cache

.PHONY: venv demo test bench-cpu clean

venv: $(VENV)/.installed

$(VENV)/.installed: setup.py
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[test,bench]'
	touch $@

demo: venv
	$(VENV)/bin/unpy build examples/mmult.py examples/nbody.py examples/cp.py \
		examples/syrk.py examples/syr2k.py examples/stencil.py examples/jacobi2d.py
	$(PY) examples/mmult.py

test: venv
	$(PY) -m pytest -q -n 2 tests

bench-cpu: venv
	$(PY) bench/cpu.py

clean:
	rm -rf .unpy-cache examples/*.so build *.egg-info
