# make test-lib-delays: the library's GPU tests (lib/tests/test_library.cpp) against the library
# compiled with -DSATLIB_TILE_DELAYS (build/lib/delays/), in which the tile of every third ticket
# sleeps before it publishes its aggregates and the tile of the ticket after it sleeps after its
# `partial` (lib/src/lookback_kernel.cuh, delay_tile): a tile that read another's records without
# waiting for the flag that covers them would read scratch of another call, and a sum would come out
# wrong. One of make test's hooks; its GPU tests skip without a GPU.
ifneq ($(wildcard lib/src/satlib.cu),)
TILE_DELAY_NS ?= 20000
# The 2-D kernels are satlib.cu's; the thin ones (sat_thin.cu) are linked as they are.
DELAY_OBJS := $(LIB_DIR)/delays/satlib.o $(filter-out %/satlib.o,$(LIB_OBJS))
$(LIB_DIR)/delays/satlib.o: lib/src/satlib.cu $(LIB_HEADERS) lib/src/device_cache.h lib/src/satlib_testing.h mk/lib_delays.mk
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DSATLIB_TILE_DELAYS=$(TILE_DELAY_NS) -DSATLIB_VERSION='"$(LIB_VERSION) (tile delays)"' -c $< -o $@
$(BUILD)/tests/lib_delays: $(TEST_MAIN) $(OBJ)/lib/tests/test_library.cpp.o $(DELAY_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS)
.PHONY: test-lib-delays
test-lib-delays: $(BUILD)/tests/lib_delays
	@$(BUILD)/tests/lib_delays '[library]~[cpu]'
TEST_HOOKS += test-lib-delays

# make delay-mutants: planted races (lib/tests/delay_mutants.json), each in its own copy of
# lib/src built as the delays build, that its tests must catch (tools/delay_mutants.py). Needs a
# GPU (without one the mutants are compiled only).
.PHONY: delay-mutants
delay-mutants: $(TEST_MAIN) $(OBJ)/lib/tests/test_library.cpp.o $(filter-out %/satlib.o,$(LIB_OBJS)) $(COMMON_OBJS)
	@$(PYTHON) tools/delay_mutants.py --compile '$(NVCC) $(NVFLAGS) -DSATLIB_TILE_DELAYS=$(TILE_DELAY_NS)' \
	    --link '$(NVCC) $(LDFLAGS)' --objs $^ $(if $(MUTANTS),--only $(MUTANTS))
endif
