# make bench-batch: build/lib/bench_batch, batches of images through the library against one
# call per image and a device copy of the same bytes, in one process (lib/bench/bench_batch.cpp).
# Named to come after mk/lib.mk, whose LIB_OBJS it links.
ifneq ($(wildcard lib/src/satlib.cu),)
.PHONY: bench-batch
bench-batch: build/lib/bench_batch
	build/lib/bench_batch $(BENCH_BATCH_ARGS)
build/lib/bench_batch: lib/bench/bench_batch.cpp $(LIB_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Ilib/include $^ -o $@ $(LIBS)
endif

# make bench-timeline: build/lib/bench_timeline, when the tiles of one library call are written
# (the kernel's tile trace): ramp, steady stretch and drain against a copy (lib/bench/bench_timeline.cu).
ifneq ($(wildcard lib/src/satlib.cu),)
.PHONY: bench-timeline
bench-timeline: build/lib/bench_timeline
	build/lib/bench_timeline $(BENCH_TIMELINE_ARGS)
build/lib/bench_timeline: lib/bench/bench_timeline.cu $(LIB_OBJS) $(COMMON_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -Ilib/include $^ -o $@ $(LIBS)
endif
