# make test-lib-delays: the library's GPU tests (lib/tests/test_library.cpp) against the library
# compiled with -DSATLIB_TILE_DELAYS=$(TILE_DELAY_NS) (build/lib/delays-<ns>/), in which every third
# tile sleeps before it publishes its aggregates and the tile after it sleeps after its `partial`,
# and every launch starts with its published sums filled with 0xff bytes
# (lib/src/lookback_kernel.cuh, delay_tile): a tile that read another's records without waiting
# for the flag that covers them would add garbage, and a sum would come out wrong. One of make
# test's hooks; without a GPU it builds nothing and reports itself skipped.
ifneq ($(wildcard lib/src/satlib.cu),)
TILE_DELAY_NS ?= 20000
# The 2-D kernels are satlib.cu's; the thin ones (sat_thin.cu) are linked as they are.
DELAY_DIR  := $(LIB_DIR)/delays-$(TILE_DELAY_NS)
DELAY_OBJS := $(DELAY_DIR)/satlib.o $(filter-out %/satlib.o,$(LIB_OBJS))
DELAY_TEST_OBJS := $(TEST_MAIN) $(OBJ)/lib/tests/test_library.cpp.o $(filter-out %/satlib.o,$(LIB_OBJS)) $(COMMON_OBJS)
DELAY_NVFLAGS = $(NVFLAGS) -DSATLIB_TILE_DELAYS=$(TILE_DELAY_NS)
$(DELAY_DIR)/satlib.o: lib/src/satlib.cu $(LIB_HEADERS) lib/src/device_cache.h lib/src/satlib_testing.h
	@mkdir -p $(@D)
	$(NVCC) $(DELAY_NVFLAGS) -DSATLIB_VERSION='"$(LIB_VERSION) (tile delays)"' -c $< -o $@
$(BUILD)/tests/lib_delays: $(DELAY_TEST_OBJS) $(DELAY_DIR)/satlib.o
	@mkdir -p $(@D)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS)
.PHONY: test-lib-delays
ifneq ($(GPU_CC),)
test-lib-delays: $(BUILD)/tests/lib_delays
	@$(BUILD)/tests/lib_delays '[library]~[cpu]'
else
test-lib-delays:
	@echo "test-lib-delays: no GPU, not built (GPU tests only)"; echo "0 passed, 0 failed, 1 skipped"
endif
TEST_HOOKS += test-lib-delays

# make delay-mutants: planted races (lib/tests/delay_mutants.json), each in its own copy of
# lib/src built as the delays build, that its tests must catch, after the unmutated delays build
# passed them (tools/delay_mutants.py). Needs a GPU (without one the mutants are compiled only).
.PHONY: delay-mutants
delay-mutants: $(DELAY_TEST_OBJS) $(BUILD)/tests/lib_delays
	@$(PYTHON) tools/delay_mutants.py --compile '$(NVCC) $(DELAY_NVFLAGS)' --link '$(NVCC) $(LDFLAGS)' \
	    --libs '$(LIBS)' --baseline $(BUILD)/tests/lib_delays --objs $(DELAY_TEST_OBJS) $(if $(MUTANTS),--only $(MUTANTS))
endif
