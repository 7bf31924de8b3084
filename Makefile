# SAT Labs — every entry point.
#   make labN        student build: labs/labN_*.cu  -> ./labN
#   make labN-ref    reference build: solutions/labN_*.cu -> ./labN-ref (never touches ./labN)
#   make test        all tests against solutions/ (GPU tests skip without a GPU)
#   make grade       score the student code in labs/ (LAB=N for one lab)
#   make release     student copy in build/release/
#   make skeletons   regenerate labs/ from solutions/
#   make bench / plots / sanitize LAB=N / deps / clean
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

.PHONY: all labs refs test grade release skeletons bench plots sanitize deps clean help
all: refs

help:
	@sed -n '2,11p' Makefile

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

# Tests: reference solutions (make test) or student code (the grader's build).
$(BUILD)/sat_tests: $(TEST_OBJS) $(SOL_OBJS) $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS)
$(BUILD)/student_tests: $(TEST_OBJS) $(LAB_OBJS) $(COMMON_OBJS)
	$(NVCC) $(LDFLAGS) $^ -o $@ $(LIBS)

# Against labs/ (a release) the [skeleton] tests, which expect the untouched skeleton, are left out.
TESTS ?= $(if $(filter labs,$(SOL_DIR)),"~[skeleton]")
test: $(BUILD)/sat_tests refs
	@$(BUILD)/sat_tests $(TESTS)

skeletons:
	$(PYTHON) tools/gen_skeletons.py solutions labs

# grade.py builds one test binary per lab, so a lab that does not compile costs only its points.
grade: $(DEPS_STAMP)
	$(PYTHON) tools/grade.py $(if $(LAB),--lab $(LAB)) $(GRADE_FLAGS)

release: $(DEPS_STAMP)
	$(PYTHON) tools/release.py $(BUILD)/release

bench: refs
	$(PYTHON) tools/bench.py

plots: $(DEPS_STAMP)
	$(PYTHON) plots/make_plots.py $(or $(CSV),plots/sample_bench.csv) $(BUILD)/plots

sanitize: $(if $(LAB),lab$(LAB)-ref)
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
