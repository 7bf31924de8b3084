# ---- Python package (issue 23): python/satlib, ctypes over build/lib/libsatlib.so --------------
#   make python        pip install . (setup.py runs make lib and packages the .so into the wheel)
#   make test-python   the package's tests: CPU always, GPU where a device is (part of make test)
#   make bench-python  tools/bench_python.py: integral vs torch, kornia, CuPy, NPP (needs a GPU)
#   make wheels        kornia for bench-python as wheels in .deps/wheels, which travel with .deps/
#                      to a GPU machine without a package registry (bench-python installs them
#                      into build/ only where `import kornia` fails; torch and numpy are the
#                      machine's own). kornia-rs is compiled: one wheel per CPython of WHEEL_PYTHONS.
PIP_FLAGS ?=
BENCH_PYTHON_FLAGS ?=
WHEELS_DIR ?= $(DEPS_DIR)/wheels
WHEEL_PYTHONS ?= 3.10 3.11 3.12 3.13
WHEEL_PLATFORM ?= manylinux2014_x86_64
TEST_HOOKS += test-python
.PHONY: python test-python bench-python wheels

python:
	$(PYTHON) -m pip install $(PIP_FLAGS) .

# $(LIB_SO) (mk/lib.mk, read before this file): the CPU tests check what the built library
# accepts; without lib.mk it is empty and those tests skip.
test-python: $(LIB_SO)
	@$(PYTHON) tests/python/run.py

bench-python: lib
	PYTHONPATH=python$(if $(PYTHONPATH),:$(PYTHONPATH)) $(PYTHON) tools/bench_python.py --wheels $(WHEELS_DIR) $(BENCH_PYTHON_FLAGS)

# kornia itself is pure Python, but the newest release that each CPython accepts differs (0.9
# needs 3.11), so every package is fetched once per version; pip skips files already there.
wheels:
	@mkdir -p $(WHEELS_DIR)
	@for v in $(WHEEL_PYTHONS); do \
	  $(PYTHON) -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
	    --platform $(WHEEL_PLATFORM) --python-version $$v -d $(WHEELS_DIR) kornia kornia-rs packaging || \
	  { echo "wheels: pip download for CPython $$v failed (needs a package index; run make wheels where" \
	    "there is one and carry $(DEPS_DIR)/)" >&2; exit 2; }; \
	done
	@echo "wheels: $$(ls $(WHEELS_DIR) | wc -l) files in $(WHEELS_DIR):" $$(ls $(WHEELS_DIR))
