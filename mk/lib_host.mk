# The library's host time per call (lib/bench/bench_host.cu), and the headers of lib/src that
# mk/lib.mk's LIB_HEADERS (*.cuh) does not list. Named to come after mk/lib.mk, whose LIB_OBJS
# it uses.
#   make bench-host                          build/lib/bench_host: host us per call of this tree
#   make bench-host-ab HOST_AB_BASE=DIR      the same bench built from DIR/*.cu (another version's
#                                            lib/src .cu files; its headers come from DIR first,
#                                            then this tree's lib/src), run alternately with this
#                                            tree's, three times each
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
HOST_AB_OBJS := $(patsubst $(HOST_AB_BASE)/%.cu,build/lib/ab-obj/%.o,$(wildcard $(HOST_AB_BASE)/*.cu))
build/lib/ab-obj/%.o: $(HOST_AB_BASE)/%.cu $(LIB_HEADERS) lib/src/device_cache.h lib/src/satlib_testing.h
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -I$(HOST_AB_BASE) -Ilib/src -Xcompiler -fPIC -DSATLIB_VERSION='"$(LIB_VERSION)-base"' -c $< -o $@
build/lib/bench_host_base: lib/bench/bench_host.cu $(HOST_AB_OBJS)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $^ -o $@ $(LIBS)
bench-host-ab: build/lib/bench_host $(if $(HOST_AB_OBJS),build/lib/bench_host_base)
	@test -n "$(HOST_AB_OBJS)" || { echo "bench-host-ab: HOST_AB_BASE=DIR must name a folder with the base's lib/src/*.cu"; exit 2; }
	@for round in 1 2 3; do \
	    echo "== base: $(HOST_AB_BASE), round $$round"; build/lib/bench_host_base $(BENCH_HOST_ARGS) || exit 1; \
	    echo "== this tree, round $$round"; build/lib/bench_host $(BENCH_HOST_ARGS) || exit 1; \
	done
endif
