# A same-process A/B of two versions of the library (lib/bench/bench_ab.cpp). Named to come after
# mk/lib.mk, whose LIB_OBJS it links.
#   make bench-ab AB_BASE=DIR [BENCH_AB_ARGS="--reps 20 --csv FILE"]
#       DIR is another version's checkout (its lib/src, lib/include and common/), e.g. from
#       `git worktree add ../base REV`. build/lib/ab-base/<DIR>/bench_ab times this tree's
#       library against DIR's, alternating in one process.
# DIR's library is compiled from DIR's sources and headers only, with its namespaces renamed
# (sat -> satbase, satlib -> satlibbase) and its C functions (satlib_*) made local, so both
# versions link into one program; lib/bench/ab_entry.cpp is compiled once against each version's
# sat.hpp. The objects and the program live in a folder named after DIR, one per base.
ifneq ($(wildcard lib/src/satlib.cu),)
AB_BASE ?=
# Checked for any goal once AB_BASE is set: a DIR without sources would otherwise build the base
# from no objects, and its program would fail to link with no word of why.
ifneq ($(filter bench-ab,$(MAKECMDGOALS))$(AB_BASE),)
ifeq ($(wildcard $(AB_BASE)/lib/src/satlib.cu),)
$(error bench-ab: AB_BASE=DIR must name another version's checkout (no DIR/lib/src/satlib.cu))
endif
endif
build/lib/ab_entry_this.o: lib/bench/ab_entry.cpp lib/bench/ab_entry.h lib/include/sat.hpp mk/lib_ab.mk
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DAB_NAMESPACE=ab_this -DAB_VERSION='"this tree"' -c $< -o $@
ifneq ($(AB_BASE),)
AB_DIR     := build/lib/ab-base/$(subst /,_,$(abspath $(AB_BASE)))
AB_OBJS    := $(patsubst $(AB_BASE)/lib/src/%.cu,$(AB_DIR)/%.o,$(wildcard $(AB_BASE)/lib/src/*.cu))
AB_HEADERS := $(call checkout_headers,$(AB_BASE))
AB_FLAGS   := $(call checkout_includes,$(AB_BASE)) $(NVFLAGS) -Dsat=satbase -Dsatlib=satlibbase
$(AB_DIR)/%.o: $(AB_BASE)/lib/src/%.cu $(AB_HEADERS) mk/lib_ab.mk
	@mkdir -p $(@D)
	$(NVCC) $(AB_FLAGS) -Xcompiler -fPIC -DSATLIB_VERSION='"base"' -c $< -o $@.whole
	objcopy $$(nm -g --defined-only $@.whole | awk '$$3 ~ /^satlib_/ {print "--localize-symbol=" $$3}') $@.whole $@
	rm -f $@.whole
$(AB_DIR)/ab_entry.o: lib/bench/ab_entry.cpp lib/bench/ab_entry.h $(AB_HEADERS) mk/lib_ab.mk
	@mkdir -p $(@D)
	$(NVCC) $(AB_FLAGS) -DAB_NAMESPACE=ab_base -DAB_VERSION='"$(AB_BASE)"' -c $< -o $@
$(AB_DIR)/bench_ab: lib/bench/bench_ab.cpp lib/bench/ab_entry.h lib/bench/bench_options.h lib/bench/bench_util.h \
                    build/lib/ab_entry_this.o $(LIB_OBJS) $(AB_DIR)/ab_entry.o $(AB_OBJS) $(COMMON_OBJS)
	$(NVCC) $(NVFLAGS) -Ilib/include $(filter-out %.h,$^) -o $@ $(LIBS)

.PHONY: bench-ab
bench-ab: $(AB_DIR)/bench_ab
	$(AB_DIR)/bench_ab $(BENCH_AB_ARGS)
endif
endif
