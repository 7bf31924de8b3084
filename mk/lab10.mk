# Lab 10 (the SAT across GPUs): NCCL, and lab 9's library kernel.
#
# NCCL from the CUDA toolkit, else the nvidia.nccl Python package (nvidia-nccl-cu13, which torch
# brings), else the system (libnccl-dev). NCCL_HOME=DIR overrides; NCCL_HOME= (empty) builds
# without it, and lab 10 then refuses --gpus G >= 2 with one line (G strips on one GPU still run).
NCCL_HOME ?= $(or $(if $(wildcard $(CUDA_HOME)/include/nccl.h),$(if $(wildcard $(CUDA_HOME)/lib64/libnccl.so*),$(CUDA_HOME))),$(shell $(PYTHON) -c "import nvidia.nccl as m; print(list(m.__path__)[0])" 2>/dev/null),$(if $(wildcard /usr/include/nccl.h),/usr))
NCCL_LIBDIR := $(patsubst %/,%,$(firstword $(dir $(wildcard $(addprefix $(NCCL_HOME)/,lib64/libnccl.so* lib/libnccl.so* lib/x86_64-linux-gnu/libnccl.so* lib/aarch64-linux-gnu/libnccl.so*)))))
NCCL_LIBFILE := $(notdir $(firstword $(wildcard $(NCCL_LIBDIR)/libnccl.so $(NCCL_LIBDIR)/libnccl.so.2)))
HAVE_NCCL := $(if $(and $(NCCL_HOME),$(wildcard $(NCCL_HOME)/include/nccl.h),$(NCCL_LIBFILE)),1,0)

# NCCL is opened at run time (dlopen of the file found here), so no binary links it and only
# lab 10 across GPUs needs it to be present.
ifeq ($(HAVE_NCCL),1)
$(OBJ)/common/multigpu.cu.o: NVFLAGS += -DSAT_HAVE_NCCL=1 -DSAT_NCCL_LIB='"$(NCCL_LIBDIR)/$(NCCL_LIBFILE)"' -I$(NCCL_HOME)/include
endif
# The choice is part of the object's inputs: switching NCCL on or off rebuilds it.
$(OBJ)/common/multigpu.cu.o: $(BUILD)/nccl-$(HAVE_NCCL).ok
$(BUILD)/nccl-$(HAVE_NCCL).ok:
	@mkdir -p $(@D)
	@rm -f $(BUILD)/nccl-*.ok
	@touch $@

# Lab 10 calls the library kernel (sat::inclusive_scan_2d, lib/include/sat.hpp): mk/lib.mk links the
# library's object into every lab binary and test binary.

.PHONY: nccl-info
nccl-info:
	@echo "HAVE_NCCL=$(HAVE_NCCL) NCCL_HOME=$(NCCL_HOME) lib=$(NCCL_LIBDIR)/$(NCCL_LIBFILE)"
