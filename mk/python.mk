# ---- Python package (issue 23): python/satlib, ctypes over build/lib/libsatlib.so --------------
#   make python        pip install . (setup.py runs make lib and packages the .so into the wheel)
#   make test-python   the package's tests: CPU always, GPU where a device is (part of make test)
#   make bench-python  tools/bench_python.py: integral vs torch, kornia, CuPy, NPP (needs a GPU)
PIP_FLAGS ?=
BENCH_PYTHON_FLAGS ?=
TEST_HOOKS += test-python
.PHONY: python test-python bench-python

python:
	$(PYTHON) -m pip install $(PIP_FLAGS) .

# $(LIB_SO) (mk/lib.mk, read before this file): the CPU tests check what the built library
# accepts; without lib.mk it is empty and those tests skip.
test-python: $(LIB_SO)
	@$(PYTHON) tests/python/run.py

bench-python: lib
	PYTHONPATH=python$(if $(PYTHONPATH),:$(PYTHONPATH)) $(PYTHON) tools/bench_python.py $(BENCH_PYTHON_FLAGS)
