# The library's host time per call (lib/bench/bench_host.cu), and the headers of lib/src that
# mk/lib.mk's LIB_HEADERS (*.cuh) does not list. Named to come after mk/lib.mk, whose LIB_OBJS
# it uses.
#   make bench-host                          build/lib/bench_host: host us per call of this tree
#   make bench-host-ab HOST_AB_BASE=DIR      the same bench built against DIR's library (DIR is
#                                            another version's checkout, as for bench-ab: its
#                                            lib/src .cu files, compiled with its own headers),
#                                            run alternately with this tree's, three times each
ifneq ($(wildcard lib/src/satlib.cu),)
$(LIB_OBJS): lib/src/device_cache.h lib/src/satlib_testing.h
$(OBJ)/lib/tests/test_device_cache.cpp.o: lib/src/device_cache.h
$(OBJ)/lib/tests/test_library.cpp.o: lib/src/satlib_testing.h

.PHONY: bench-host bench-host-ab
bench-host: build/lib/bench_host
	build/lib/bench_host $(BENCH_HOST_ARGS)
build/lib/bench_host: lib/bench/bench_host.cu $(LIB_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $^ -o $@ $(LIBS)

HOST_AB_BASE ?=
ifneq ($(filter bench-host-ab,$(MAKECMDGOALS)),)
ifeq ($(wildcard $(HOST_AB_BASE)/lib/src/satlib.cu),)
$(error bench-host-ab: HOST_AB_BASE=DIR must name another version's checkout (no DIR/lib/src/satlib.cu))
endif
endif
ifneq ($(HOST_AB_BASE),)
HOST_AB_DIR  := build/lib/host-ab-base/$(subst /,_,$(abspath $(HOST_AB_BASE)))
HOST_AB_OBJS := $(patsubst $(HOST_AB_BASE)/lib/src/%.cu,$(HOST_AB_DIR)/%.o,$(wildcard $(HOST_AB_BASE)/lib/src/*.cu))
HOST_AB_FLAGS = $(call checkout_includes,$(HOST_AB_BASE)) $(NVFLAGS)
$(HOST_AB_DIR)/%.o: $(HOST_AB_BASE)/lib/src/%.cu $(call checkout_headers,$(HOST_AB_BASE)) mk/lib_host.mk
	@mkdir -p $(@D)
	$(NVCC) $(HOST_AB_FLAGS) -Xcompiler -fPIC -DSATLIB_VERSION='"$(LIB_VERSION)-base"' -c $< -o $@
$(HOST_AB_DIR)/bench_host: lib/bench/bench_host.cu $(HOST_AB_OBJS) $(call checkout_headers,$(HOST_AB_BASE))
	@mkdir -p $(@D)
	$(NVCC) $(HOST_AB_FLAGS) $(filter-out %.h %.hpp %.cuh,$^) -o $@ $(LIBS)
bench-host-ab: build/lib/bench_host $(HOST_AB_DIR)/bench_host
	@for round in 1 2 3; do \
	    echo "== base: $(HOST_AB_BASE), round $$round"; $(HOST_AB_DIR)/bench_host $(BENCH_HOST_ARGS) || exit 1; \
	    echo "== this tree, round $$round"; build/lib/bench_host $(BENCH_HOST_ARGS) || exit 1; \
	done
endif
endif
