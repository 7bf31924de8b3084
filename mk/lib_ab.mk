# A same-process A/B of two versions of the library (lib/bench/bench_ab.cpp). Named to come after
# mk/lib.mk, whose LIB_OBJS it links.
#   make bench-ab AB_BASE=DIR   build/lib/bench_ab: this tree's library against the one built from
#                               DIR (another version's lib/src files, flat, and its
#                               common/lookback.cuh), alternating in one process
# The base is compiled with its namespaces renamed (sat -> satbase, satlib -> satlibbase) and its
# C functions (satlib_*) made local, so both versions link into one program; lib/bench/ab_entry.cpp
# is built once for each.
ifneq ($(wildcard lib/src/satlib.cu),)
AB_BASE ?=
AB_OBJ_DIR   := build/lib/ab-base/$(subst /,_,$(AB_BASE))
AB_BASE_OBJS := $(patsubst $(AB_BASE)/%.cu,$(AB_OBJ_DIR)/%.o,$(wildcard $(AB_BASE)/*.cu))
AB_RENAME := -Dsat=satbase -Dsatlib=satlibbase
$(AB_OBJ_DIR)/%.o: $(AB_BASE)/%.cu $(wildcard $(AB_BASE)/*.cuh $(AB_BASE)/*.h)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -I$(AB_BASE) -Ilib/src $(AB_RENAME) -DSATLIB_VERSION='"base"' -c $< -o $@.whole
	objcopy $$(nm -g --defined-only $@.whole | awk '$$3 ~ /^satlib_/ {print "--localize-symbol=" $$3}') $@.whole $@
	rm -f $@.whole
build/lib/ab-base/ab_entry.o: lib/bench/ab_entry.cpp lib/bench/ab_entry.h lib/include/sat.hpp
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $(AB_RENAME) -DAB_NAMESPACE=ab_base -c $< -o $@
build/lib/ab_entry_this.o: lib/bench/ab_entry.cpp lib/bench/ab_entry.h lib/include/sat.hpp
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DAB_NAMESPACE=ab_this -c $< -o $@
build/lib/bench_ab: lib/bench/bench_ab.cpp lib/bench/bench_util.h lib/bench/bench_options.h build/lib/ab_entry_this.o $(LIB_OBJS) \
                    build/lib/ab-base/ab_entry.o \
                    $(AB_BASE_OBJS) $(COMMON_OBJS)
	@test -n "$(AB_BASE_OBJS)" || { echo "bench-ab: AB_BASE=DIR must name a folder with the base's lib/src/*.cu"; exit 2; }
	$(NVCC) $(NVFLAGS) -Ilib/include $(filter-out %.h,$^) -o $@ $(LIBS)

.PHONY: bench-ab
bench-ab: build/lib/bench_ab
	build/lib/bench_ab $(BENCH_AB_ARGS)
endif
