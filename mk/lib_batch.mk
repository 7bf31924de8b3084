# The library's benchmarks that link the harness (lib/bench/), one rule each: `make TARGET` builds
# build/lib/PROGRAM and runs it with $(ARGS_VARIABLE). Named to come after mk/lib.mk, whose
# LIB_OBJS they link.
#   make bench-batch     batches of images through the library against one call per image and a
#                        device copy of the same bytes, in one process (lib/bench/bench_batch.cpp)
#   make bench-timeline  when the tiles of one library call are written (the kernel's tile
#                        trace): ramp, steady stretch and drain (lib/bench/bench_timeline.cu)
ifneq ($(wildcard lib/src/satlib.cu),)
# $(1) target, $(2) program, $(3) source, $(4) the variable of its arguments
define LIB_BENCH_RULES
.PHONY: $(1)
$(1): build/lib/$(2)
	build/lib/$(2) $$($(4))
build/lib/$(2): $(3) lib/bench/bench_util.h $$(LIB_OBJS) $$(COMMON_OBJS)
	@mkdir -p $$(@D)
	$$(NVCC) $$(NVFLAGS) -Ilib/include $$(filter-out %.h %.cuh,$$^) -o $$@ $$(LIBS)
endef
$(eval $(call LIB_BENCH_RULES,bench-batch,bench_batch,lib/bench/bench_batch.cpp,BENCH_BATCH_ARGS))
$(eval $(call LIB_BENCH_RULES,bench-timeline,bench_timeline,lib/bench/bench_timeline.cu,BENCH_TIMELINE_ARGS))
build/lib/bench_batch: lib/bench/bench_options.h
build/lib/bench_timeline: lib/bench/bracket_stamps.cuh
endif
# make bench-tile-times: each tile's steps in one library call (lib/bench/bench_tile_times.cu),
# linked against the library compiled with -DSATLIB_TILE_STAMPS (build/lib/stamps/), which
# stamps every ticket's steps in the kernel's trace.
ifneq ($(wildcard lib/src/satlib.cu),)
STAMP_OBJS := $(patsubst lib/src/%.cu,$(LIB_DIR)/stamps/%.o,$(LIB_SRC))
$(LIB_DIR)/stamps/%.o: lib/src/%.cu $(LIB_HEADERS) mk/lib_batch.mk
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DSATLIB_TILE_STAMPS -DSATLIB_VERSION='"$(LIB_VERSION) (tile stamps)"' -c $< -o $@
build/lib/bench_tile_times: lib/bench/bench_tile_times.cu lib/bench/bench_util.h lib/bench/bracket_stamps.cuh lib/src/satlib_testing.h $(STAMP_OBJS) \
                            $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Ilib/include -Ilib/src $(filter-out %.h %.cuh,$^) -o $@ $(LIBS)
.PHONY: bench-tile-times
bench-tile-times: build/lib/bench_tile_times
	build/lib/bench_tile_times $(BENCH_TILE_TIMES_ARGS)
endif
