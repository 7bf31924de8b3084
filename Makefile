# SAT Labs — every entry point.
#   make labN        student build: labs/labN_*.cu  -> ./labN
#   make labN-ref    reference build: solutions/labN_*.cu -> ./labN-ref (never touches ./labN)
#   make test        all tests against solutions/ (GPU tests skip without a GPU)
#   make grade       score the student code in labs/ (LAB=N for one lab)
#   make release     student copy in build/release/
#   make skeletons   regenerate labs/ from solutions/
#   make bench / plots / results / sanitize LAB=N / deps / clean   (make help: all of them)
# ARCH=sm_XX overrides the GPU architecture (default: the GPU present, else sm_90).

NVCC      ?= nvcc
CXX       ?= g++
PYTHON    ?= python3
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(realpath $(shell command -v $(NVCC))))
GPU_CC    := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d '. ')
ARCH      ?= $(if $(GPU_CC),sm_$(GPU_CC),sm_90)

DEPS_DIR  := .deps
DEPS_INC  := $(DEPS_DIR)/root/usr/include
INCLUDES  := -Icommon -I$(DEPS_INC) -I$(CUDA_HOME)/include
NVFLAGS   := -std=c++17 -O3 -lineinfo -arch=$(ARCH) $(INCLUDES) --expt-relaxed-constexpr \
             -Xcompiler -pthread -Xcompiler -Wall
CXXFLAGS  := -std=c++17 -O2 -pthread -Wall $(INCLUDES)
LDFLAGS   := -arch=$(ARCH) -Xcompiler -pthread -lpthread

BUILD     := build
OBJ       := $(BUILD)/obj
DEPS_STAMP := $(BUILD)/deps.ok

COMMON_SRC  := $(filter-out common/main.cpp,$(wildcard common/*.cpp common/*.cu))
COMMON_OBJS := $(patsubst %,$(OBJ)/%.o,$(COMMON_SRC))
# tests/hidden/ holds instructor-only tests; make release leaves it out.
TEST_SRC    := $(wildcard tests/*.cpp tests/hidden/*.cpp)
TEST_OBJS   := $(patsubst %,$(OBJ)/%.o,$(TEST_SRC))
# The reference code: solutions/; in a student release (no solutions/) the student code in labs/
# stands in, so that make test and labN-ref still build there.
SOL_DIR     ?= $(if $(wildcard solutions/lab*),solutions,labs)
SOL_SRC     := $(wildcard $(SOL_DIR)/lab*.cu $(SOL_DIR)/lab*.cpp)
LAB_SRC     := $(wildcard labs/lab*.cu labs/lab*.cpp)
SOL_OBJS    := $(patsubst %,$(OBJ)/%.o,$(SOL_SRC))
LAB_OBJS    := $(patsubst %,$(OBJ)/%.o,$(LAB_SRC))
LIBS        :=

# Lab IDs present in solutions/ ("1" ... "9", "8x").
LAB_IDS := $(sort $(patsubst $(SOL_DIR)/lab%,%,$(foreach f,$(SOL_SRC),$(firstword $(subst _, ,$(basename $(f)))))))
lab_src = $(firstword $(wildcard $(1)/lab$(2)_*.cu $(1)/lab$(2)_*.cpp))
lab_obj = $(patsubst %,$(OBJ)/%.o,$(call lab_src,$(1),$(2)))

.PHONY: all labs refs test grade release skeletons bench plots results sanitize deps clean help
all: refs

help:
	@echo "SAT Labs - make targets"
	@echo "  make labN          build your lab N from labs/        -> ./labN"
	@echo "  make labN-ref      build the reference solution       -> ./labN-ref"
	@echo "  make test          all tests against the references (GPU tests skip without a GPU)"
	@echo "  make grade         score your code in labs/ (LAB=N for one lab)"
	@echo "  make bench         time every lab on this GPU         -> build/bench_<gpu>.csv, .json"
	@echo "  make plots         figures from a bench CSV (CSV=FILE; default plots/sample_bench.csv)"
	@echo "  make results       docs/results.md from the committed bench runs (RESULTS_CSV) and their .json"
	@echo "  make check-results exit 1 where docs/results.md is not the page of those runs (the tests run it)"
	@echo "  make sanitize LAB=N   compute-sanitizer on lab N"
	@echo "  make deps          fetch Catch2, stb, CLI11 (Debian packages) and numpy/matplotlib"
	@echo "  make release       the student copy in build/release/"
	@echo "  make skeletons     regenerate labs/ from solutions/"
	@echo "  make clean         remove build outputs"
	@echo "  make lib / make python / make print-labs / make sanitize-lib ...: see README.md and the Makefile"
	@echo "ARCH=sm_XX overrides the GPU architecture (default: the GPU present, else sm_90)."

define LAB_RULES
lab$(1): $(call lab_obj,labs,$(1)) $(foreach d,$(LAB_USES_$(1)),$(call lab_obj,labs,$(d))) $(OBJ)/main_$(1).o $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS)
lab$(1)-ref: $(call lab_obj,$(SOL_DIR),$(1)) $(foreach d,$(LAB_USES_$(1)),$(call lab_obj,$(SOL_DIR),$(d))) $(OBJ)/main_$(1).o $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS)
endef
$(foreach id,$(LAB_IDS),$(eval $(call LAB_RULES,$(id))))
# The shared main() built for one lab id (0: the peers).
define MAIN_RULE
$(OBJ)/main_$(1).o: common/main.cpp common/harness.h $(DEPS_STAMP)
	@mkdir -p $$(@D)
	$(CXX) $(CXXFLAGS) -DSAT_LAB='"$(1)"' -c $$< -o $$@
endef
$(foreach id,0 $(LAB_IDS),$(eval $(call MAIN_RULE,$(id))))

labs: $(addprefix lab,$(LAB_IDS))
refs: $(addsuffix -ref,$(addprefix lab,$(LAB_IDS)))

HEADERS := $(wildcard common/*.h common/*.cuh tests/*.h)

$(OBJ)/%.cu.o: %.cu $(HEADERS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -c $< -o $@

$(OBJ)/%.cpp.o: %.cpp $(HEADERS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(CXX) $(CXXFLAGS) -c $< -o $@
# A source as the compiler sees it after the preprocessor, line markers kept: tools/grade.py reads a
# student's lines in it for calls that no lab needs (macros expanded, so they cannot hide a name).
# A .cu file twice: its device pass (nvcc -E, __CUDA_ARCH__ defined), then, after the marker line
# HOST_PASS, its host pass: the host compiler's -E step that nvcc would run (taken from nvcc
# --dryrun: nvcc has no flag for it; where --dryrun shows no such step, cudafe's host code from
# nvcc --cuda). A .cpp file has only a host pass.
HOST_PASS := \# 0 "<host pass>"
define preprocess_cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $(1) -E $< -o $@
	$(NVCC) $(NVFLAGS) $(1) -c $< -o $@.o --dryrun 2>&1 | sed -n '/cpp4\.ii/{s/^#\$$ //;s|-o "[^"]*cpp4\.ii"|-o "$@.host"|p;q}' > $@.cmd
	if [ -s $@.cmd ]; then sh $@.cmd; else $(NVCC) $(NVFLAGS) $(1) --cuda $< -o $@.host; fi
	echo '$(HOST_PASS)' >> $@ && cat $@.host >> $@ && rm -f $@.host $@.cmd
endef
$(OBJ)/%.cu.i: %.cu $(HEADERS) $(DEPS_STAMP)
	$(call preprocess_cu,)
$(OBJ)/%.cpp.i: %.cpp $(HEADERS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	echo '$(HOST_PASS)' > $@ && $(CXX) $(CXXFLAGS) -E $< >> $@

# ---- Tests: one binary per lab, one for the harness ---------------------------------------------
# tests/test_lab<ID>.cpp and tests/hidden/test_lab<ID>_*.cpp -> build/tests/lab<ID>, linked with
# that lab's reference code only (and the labs in LAB_USES_<ID>); every other tests/test_*.cpp
# -> build/tests/harness. A fragment adds objects or -l flags to one binary with
# TEST_EXTRA_<bin> += ... (bin: lab10, harness, ...) and test steps to `make test` with
# TEST_HOOKS += <target> (the target's last line: "N passed, N failed, N skipped").
# The grader builds the same binaries from STUDENT_DIR (default labs/) as
# build/tests-<dir>/lab<ID>, and the lab program as build/tests-<dir>/prog/lab<ID>.
.SECONDEXPANSION:
STUDENT_DIR  ?= labs
STUDENT_TAG  := $(subst /,_,$(patsubst %/,%,$(STUDENT_DIR)))
TEST_MAIN    := $(OBJ)/tests/main.cpp.o
LAB_TEST_SRC  = $(wildcard tests/test_lab$(1).cpp tests/hidden/test_lab$(1)_*.cpp)
HARNESS_TEST_SRC := $(filter-out tests/main.cpp tests/test_lab% tests/hidden/test_lab%,$(TEST_SRC))
# The harness tests use lab 1 as their fixture, and tests/test_cli.cpp loops over every
# registered lab (sat::all_labs()): until it takes the labs from `make print-labs`, the harness
# links the reference code of labs 1-9 and 8x (not a lab with its own libraries, like lab 10).
HARNESS_LABS := 1 2 3 4 5 6 7 8 8x 9
TEST_EXTRA_harness += $(foreach id,$(filter $(HARNESS_LABS),$(LAB_IDS)),$(call lab_obj,$(SOL_DIR),$(id)))
TEST_BINS    := $(BUILD)/tests/harness $(addprefix $(BUILD)/tests/lab,$(LAB_IDS))
lab_code_objs = $(call lab_obj,$(1),$(2)) $(foreach d,$(LAB_USES_$(2)),$(call lab_obj,$(1),$(d)))
# The labs whose flags go through common/progress_flag.cuh (their solution includes it): their
# code in a test binary, here and in the grader's, is built under $(OBJ)/checked/ with
# -DSAT_CHECK_ORDERING, which stops a kernel that reads a flag weaker than acquire or raises it
# weaker than release. The lab programs (./labN, ./labN-ref, the grader's prog/labN) stay plain.
ORDER_CHECKED_LABS := $(foreach f,$(shell grep -l '"progress_flag.cuh"' $(SOL_SRC) 2>/dev/null),$(patsubst $(SOL_DIR)/lab%,%,$(firstword $(subst _, ,$(basename $(f))))))
ORDER_CHECK_FLAGS  := -DSAT_CHECK_ORDERING
test_lab_obj = $(if $(filter $(2),$(ORDER_CHECKED_LABS)),$(patsubst $(OBJ)/%,$(OBJ)/checked/%,$(call lab_obj,$(1),$(2))),$(call lab_obj,$(1),$(2)))
test_code_objs = $(call test_lab_obj,$(1),$(2)) $(foreach d,$(LAB_USES_$(2)),$(call test_lab_obj,$(1),$(d)))
$(OBJ)/checked/%.cu.o: %.cu $(HEADERS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) $(ORDER_CHECK_FLAGS) -c $< -o $@
$(OBJ)/checked/%.cu.i: %.cu $(HEADERS) $(DEPS_STAMP)
	$(call preprocess_cu,$(ORDER_CHECK_FLAGS))
# Objects (prerequisites) and flags (link line) of TEST_EXTRA_<bin>; expanded late, so that the
# fragments included at the end of this Makefile count.
test_extra_objs  = $(filter-out -%,$(TEST_EXTRA_$(1)))
test_extra_flags = $(filter -%,$(TEST_EXTRA_$(1)))

define LAB_TEST_RULES
$(BUILD)/tests/lab$(1): $(TEST_MAIN) $(patsubst %,$(OBJ)/%.o,$(call LAB_TEST_SRC,$(1))) $(call test_code_objs,$(SOL_DIR),$(1)) $(COMMON_OBJS) $$$$(call test_extra_objs,lab$(1))
	@mkdir -p $$(@D)
	$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS) $$(call test_extra_flags,lab$(1))
$(BUILD)/tests-$(STUDENT_TAG)/lab$(1): $(TEST_MAIN) $(patsubst %,$(OBJ)/%.o,$(call LAB_TEST_SRC,$(1))) $(call test_code_objs,$(STUDENT_DIR),$(1)) $(COMMON_OBJS) $$$$(call test_extra_objs,lab$(1))
	@mkdir -p $$(@D)
	$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS) $$(call test_extra_flags,lab$(1))
$(BUILD)/tests-$(STUDENT_TAG)/prog/lab$(1): $(call lab_code_objs,$(STUDENT_DIR),$(1)) $(OBJ)/main_$(1).o $(COMMON_OBJS)
	@mkdir -p $$(@D)
	$(NVCC) $(LDFLAGS) $$^ -o $$@ $(LIBS)
endef
$(foreach id,$(LAB_IDS),$(eval $(call LAB_TEST_RULES,$(id))))
$(BUILD)/tests/harness: $(TEST_MAIN) $(patsubst %,$(OBJ)/%.o,$(HARNESS_TEST_SRC)) $(COMMON_OBJS) $$(call test_extra_objs,harness)
	@mkdir -p $(@D)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS) $(call test_extra_flags,harness)

# build/sat_tests: every test binary (the name older scripts use).
.PHONY: $(BUILD)/sat_tests test-bins print-labs
$(BUILD)/sat_tests test-bins: $(TEST_BINS)

# Against labs/ (a release) the [skeleton] tests, which expect the untouched skeleton, are left out,
# and the [repo] tests, which need what a release leaves out (a lab's reference code, such as lab 1's
# in the harness's checker and command-line tests, or the instructors' tools and handouts).
TESTS ?= $(if $(filter labs,$(SOL_DIR)),~[skeleton]~[repo])
TEST_TIMEOUT ?= 3600
TEST_HOOKS ?=
# TEST_JOBS=N: up to N binaries at once, the hooks one after another beside them (tools/run_tests.py).
# Above 1 the harness, by far the longest binary, runs as two parts side by side: its [library]
# cases and the rest (each with TESTS).
TEST_JOBS ?= 1
TEST_PARTS = $(if $(filter-out 1,$(TEST_JOBS)),--part '$(BUILD)/tests/harness=[library]' \
                                               --part '$(BUILD)/tests/harness=~[library]')
# Every binary runs (a crash or a time-out in one costs only its own count), then every hook;
# the last line sums them all.
test: $(TEST_BINS) refs
	@$(PYTHON) tools/run_tests.py --timeout $(TEST_TIMEOUT) --jobs $(TEST_JOBS) --filter '$(TESTS)' \
	    $(TEST_PARTS) $(addprefix --hook ,$(TEST_HOOKS)) $(TEST_BINS)

# The labs as JSON (tools read this, not the Makefile): id, reference and student file, GPU or
# CPU (lab<ID>_*.cpp is a CPU lab, .cu a GPU lab), whether its test objects are order-checked
# ($(OBJ)/checked/), the labs it reuses.
lab_json = {"id": "$(1)", "solution": "$(call lab_src,$(SOL_DIR),$(1))", "student": "$(call lab_src,$(STUDENT_DIR),$(1))", "gpu": $(if $(filter %.cu,$(call lab_src,$(SOL_DIR),$(1))),true,false), "order_checked": $(if $(filter $(1),$(ORDER_CHECKED_LABS)),true,false), "uses": [$(subst $(eval) ,$(comma),$(foreach d,$(LAB_USES_$(1)),"$(d)"))]}
comma := ,
print-labs:
	@printf '%s\n' '{"solution_dir": "$(SOL_DIR)", "student_dir": "$(STUDENT_DIR)", "labs": [$(subst } {,}$(comma) {,$(foreach id,$(LAB_IDS),$(call lab_json,$(id))))]}'

# In a student release (no solutions/, no instructor tools) these two say so in one line.
NO_SOLUTIONS = $(if $(wildcard solutions/lab*),,@echo "$@: this is the student copy: make $@ needs solutions/ and the instructor's tools"; exit 2)
skeletons:
	$(NO_SOLUTIONS)
	$(PYTHON) tools/gen_skeletons.py solutions labs

# grade.py builds one test binary per lab, so a lab that does not compile costs only its points.
grade: $(DEPS_STAMP)
	$(PYTHON) tools/grade.py $(if $(LAB),--lab $(LAB)) $(GRADE_FLAGS)

release: $(if $(wildcard solutions/lab*),$(DEPS_STAMP))
	$(NO_SOLUTIONS)
	$(PYTHON) tools/release.py $(BUILD)/release

bench: refs
	$(PYTHON) tools/bench.py $(BENCH_ARGS)

plots: $(DEPS_STAMP)
	@$(PYTHON) plots/make_plots.py $(or $(CSV),plots/sample_bench.csv) $(BUILD)/plots

# docs/results.md: the committed bench CSV and its metadata (GPU, driver, toolkit, date) as tables.
RESULTS_CSV ?= plots/bench_h100_2026-11-28.csv plots/bench_h100_2026-11-28_32k.csv plots/bench_h200_2026-11-28_937c09f.csv plots/bench_h200_2026-11-28.csv plots/bench_h200_2026-11-29_lib.csv plots/bench_h200_2026-11-29_thin_f64.csv plots/bench_h200_2026-11-30_510fc04.csv plots/bench_h200_2026-11-30_df61d03.csv plots/bench_h200_2026-11-30_c78b4c0.csv plots/bench_h200_2026-12-01_070cc11.csv plots/bench_h200_2026-12-01_d4b906b.csv plots/bench_h200_2026-12-01_d88f0e8.csv plots/bench_h200_2026-12-01_2bb441a.csv plots/bench_h200_2026-12-01_a608933.csv plots/bench_h200_2026-12-01_8d74296.csv plots/bench_h200_2026-12-01_4cb90fb.csv
RESULTS_MD  ?= docs/results.md
results:
	@$(PYTHON) tools/results.py $(or $(CSV),$(RESULTS_CSV)) $(RESULTS_MD)
# make check-results: exit 1 where docs/results.md is not the page of RESULTS_CSV (tests/test_results.cpp).
.PHONY: check-results
check-results:
	@$(PYTHON) tools/results.py --check $(RESULTS_CSV) $(RESULTS_MD)

# One line and exit 2 (make's $(error)) for no LAB, an unknown lab, or the CPU lab.
GPU_LAB_IDS = $(foreach id,$(LAB_IDS),$(if $(filter %.cu,$(call lab_src,$(SOL_DIR),$(id))),$(id)))
sanitize:
	$(if $(LAB),,$(error make sanitize LAB=N: which lab? GPU labs: $(strip $(GPU_LAB_IDS))))
	$(if $(filter $(LAB),$(LAB_IDS)),,$(error make sanitize: no lab $(LAB) here (labs: $(LAB_IDS))))
	$(if $(filter $(LAB),$(GPU_LAB_IDS)),,$(error make sanitize: lab $(LAB) runs on the CPU, nothing to sanitize (compute-sanitizer checks GPU kernels; for CPU code try valgrind)))
	@$(MAKE) --no-print-directory lab$(LAB)-ref
	$(PYTHON) tools/sanitize.py $(LAB)

# ---- Peers, bench pictures (issue 7) -----------------------------------------------------------
# build/peers: NPP and CUB measured through the harness as "lab 0" (tools/peers.cu). NPP is used
# only when the toolkit has libnppist; the object name records the choice so that a build with
# NPP and one without never mix. build/bank_map: lab 3's bank map picture (no GPU needed).
HAVE_NPP   := $(if $(wildcard $(CUDA_HOME)/lib64/libnppist.so),1,0)
PEERS_LIBS := $(if $(filter 1,$(HAVE_NPP)),-L$(CUDA_HOME)/lib64 -lnppist -lnppc)
$(OBJ)/tools/peers_npp$(HAVE_NPP).o: tools/peers.cu $(HEADERS) $(DEPS_STAMP)
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -DSAT_HAVE_NPP=$(HAVE_NPP) -c $< -o $@
$(BUILD)/peers: $(OBJ)/tools/peers_npp$(HAVE_NPP).o $(OBJ)/main_0.o $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS) $(PEERS_LIBS)
$(BUILD)/bank_map: $(OBJ)/tools/bank_map.cpp.o $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS)
.PHONY: peers bank-map
peers: $(BUILD)/peers
bank-map: $(BUILD)/bank_map
	$(BUILD)/bank_map docs/img/bank_map.png
# ---- end of peers block -------------------------------------------------------------------------

# Dependencies: Catch2 (v2, header only), stb, numpy + matplotlib. tools/deps.sh installs
# system packages when it can (root with apt), otherwise unpacks them into .deps/.
deps: $(DEPS_STAMP)
$(DEPS_STAMP): tools/deps.sh
	@mkdir -p $(BUILD)
	@tools/deps.sh $(DEPS_DIR)
	@touch $@

clean:
	rm -rf $(BUILD) $(addprefix lab,$(LAB_IDS)) $(addsuffix -ref,$(addprefix lab,$(LAB_IDS)))

# Feature fragments (mk/*.mk): the library, lab 10, mutants, ... each keep their rules there.
-include $(sort $(wildcard mk/*.mk))
