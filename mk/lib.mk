# ---- The SAT library (lib/): make lib, make install PREFIX=..., make test-install -------------
# build/lib/libsatlib.a and build/lib/libsatlib.so (the Python package loads the .so) from
# lib/src/ and the shared device headers of common/. The lab binaries and the test binaries
# link the library's object: the harness's --box path (common/lib_box.cpp, a weak reference)
# and the library tests call it. A copy without lib/src (a student release) builds without it,
# and its --box path filters on the CPU.
ifneq ($(wildcard lib/src/satlib.cu),)
# build/lib, not $(BUILD)/lib: the grader sets BUILD per lab; the Python package loads build/lib.
LIB_DIR     := build/lib
LIB_A       := $(LIB_DIR)/libsatlib.a
LIB_SO      := $(LIB_DIR)/libsatlib.so
LIB_SRC     := $(wildcard lib/src/*.cu)
LIB_OBJS    := $(patsubst lib/src/%.cu,$(LIB_DIR)/obj/%.o,$(LIB_SRC))
LIB_HEADERS := $(wildcard lib/include/*.h lib/include/*.hpp lib/src/*.cuh) common/device.cuh common/launch.cuh common/lookback.cuh common/sat.h
LIB_VERSION := 1.1.0
PREFIX      ?= /usr/local

NVFLAGS     += -Ilib/include
CXXFLAGS    += -Ilib/include

# Another version's checkout DIR (mk/lib_ab.mk's bench-ab, mk/lib_host.mk's bench-host-ab): its
# headers, and its include folders, to go ahead of this tree's so that DIR's headers win (a
# header DIR lacks is still found in this tree's folders).
checkout_headers  = $(wildcard $(1)/lib/src/*.cuh $(1)/lib/src/*.h $(1)/lib/include/* $(1)/common/*.cuh $(1)/common/*.h)
checkout_includes = -I$(1)/lib/src -I$(1)/lib/include -I$(1)/common

.PHONY: lib install test-install
lib: $(LIB_A) $(LIB_SO)

$(LIB_DIR)/obj/%.o: lib/src/%.cu $(LIB_HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Xcompiler -fPIC -DSATLIB_VERSION='"$(LIB_VERSION)"' -c $< -o $@
$(LIB_A): $(LIB_OBJS)
	@mkdir -p $(@D)
	rm -f $@ && ar rcs $@ $^
# The CUDA runtime is linked statically into the shared library: loading it needs only the driver.
$(LIB_SO): $(LIB_OBJS)
	@mkdir -p $(@D)
	$(NVCC) -shared -arch=$(ARCH) $^ -o $@ -Xlinker -soname=libsatlib.so

# Every binary that links the harness (common/) links the library's object too (an object, not
# the archive: the harness refers to it only weakly, which would not pull an archive member).
$(addprefix lab,$(LAB_IDS)) $(addsuffix -ref,$(addprefix lab,$(LAB_IDS))) $(BUILD)/peers $(BUILD)/bank_map \
    $(addprefix $(BUILD)/tests-$(STUDENT_TAG)/prog/lab,$(LAB_IDS)): $(LIB_OBJS)
$(foreach id,$(LAB_IDS),$(eval TEST_EXTRA_lab$(id) += $(LIB_OBJS)))
# The library's tests (lib/tests/) and the thin-matrix tests (tests/test_thin.cpp, which includes
# lib/src/sat_thin.cuh) join the harness test binary.
LIB_TEST_OBJS := $(patsubst %,$(OBJ)/%.o,$(wildcard lib/tests/*.cpp))
TEST_EXTRA_harness += $(LIB_OBJS) $(LIB_TEST_OBJS)
# The peers (tools/peers.cu) join lab 9's test binary: its batches are tested beside the library's
# (the peers' satlib variant, through sat::ScanOptions::batch).
TEST_EXTRA_lab9 += $(OBJ)/tools/peers_npp$(HAVE_NPP).o $(PEERS_LIBS)
$(OBJ)/tests/test_thin.cpp.o: CXXFLAGS += -Ilib/src
$(OBJ)/tests/test_thin.cpp.o: lib/src/sat_thin.cuh

# make install PREFIX=...: the libraries, the headers, satlib.pc and a CMake package (satlib::satlib).
CUDA_INC_DIR := $(CUDA_HOME)/include
CUDA_LIB_DIR := $(CUDA_HOME)/lib64
lib_subst = sed -e 's|@PREFIX@|$(abspath $(PREFIX))|g' -e 's|@VERSION@|$(LIB_VERSION)|g' \
                -e 's|@CUDA_INCLUDE@|$(CUDA_INC_DIR)|g' -e 's|@CUDA_LIB@|$(CUDA_LIB_DIR)|g'
install: $(LIB_A) $(LIB_SO)
	install -d $(PREFIX)/lib/pkgconfig $(PREFIX)/lib/cmake/satlib $(PREFIX)/include
	install -m 644 $(LIB_A) $(PREFIX)/lib/
	install -m 755 $(LIB_SO) $(PREFIX)/lib/
	install -m 644 lib/include/satlib.h lib/include/sat.hpp $(PREFIX)/include/
	$(lib_subst) lib/cmake/satlib.pc.in > $(PREFIX)/lib/pkgconfig/satlib.pc
	$(lib_subst) lib/cmake/satlibConfig.cmake.in > $(PREFIX)/lib/cmake/satlib/satlibConfig.cmake
	$(lib_subst) lib/cmake/satlibConfigVersion.cmake.in > $(PREFIX)/lib/cmake/satlib/satlibConfigVersion.cmake

# Installs into build/install-test and builds lib/examples/consumer.cpp against that copy, with
# pkg-config and with CMake (CPU: builds and links; with a GPU: also runs it and checks).
test-install: $(LIB_A) $(LIB_SO)
	@rm -rf $(BUILD)/install-test
	@$(MAKE) --no-print-directory install PREFIX=$(BUILD)/install-test/prefix >$(BUILD)/install-test.log 2>&1 \
	    || { cat $(BUILD)/install-test.log; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
	@CXX="$(CXX)" lib/examples/test_install.sh $(abspath $(BUILD)/install-test) $(CUDA_HOME)
TEST_HOOKS += test-install

# make sanitize-lib: the library's [sanitize] tests (small batches with squares, thin batches and
# single images tall and wide, a batch with more tickets than blocks, grids of 1 to 5 blocks, lines,
# u8 images of 2 and 3 rows and of 2 and 3 columns in words, f32, i32 and f64 images of 2 and 3 rows
# in element lanes, f32 and i32 images of 2 rows in group lanes, f32 and i32 chunks loaded by cp.async,
# single images whose input ends inside a cut group, 2-D images whose input ends inside a row's
# last vector, 2-D images of odd pitches in small tiles, and packed ones of an odd width in 256-thread
# tiles, whose input ends at the matrix's last element) under compute-sanitizer's memcheck,
# racecheck and synccheck; one line per tool, the logs
# in $(BUILD)/sanitize/. Needs a GPU.
.PHONY: sanitize-lib
sanitize-lib: $(BUILD)/tests/harness
	@mkdir -p $(BUILD)/sanitize; fail=0; for tool in memcheck racecheck synccheck; do \
	    log=$(BUILD)/sanitize/library_$$tool.log; \
	    if compute-sanitizer --tool $$tool --error-exitcode 86 $(BUILD)/tests/harness '[sanitize]' >$$log 2>&1; \
	    then echo "sanitize-lib $$tool: clean ($$(grep -oE '(ERROR|RACECHECK) SUMMARY: .*' $$log | tail -1))"; \
	    else echo "sanitize-lib $$tool: FAILED, see $$log"; fail=1; fi; done; exit $$fail
endif
# ---- end of the library block -------------------------------------------------------------------

# The measured tables of docs/*.md, from the committed CSV of named runs (docs/data/, plots/);
# tests/test_docs.cpp checks they are in sync (--check).
.PHONY: library-tables
library-tables:
	$(PYTHON) tools/library_tables.py
