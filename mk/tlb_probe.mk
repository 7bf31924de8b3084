# make tlb-probe: build/tlb_probe, a standalone check of whether the harness's between-repetition
# check changes the speed of the next timed run (tools/tlb_probe.cu says how to read it).
.PHONY: tlb-probe
tlb-probe: $(BUILD)/tlb_probe
$(BUILD)/tlb_probe: tools/tlb_probe.cu common/touch_pages.cuh
	@mkdir -p $(BUILD)
	$(NVCC) -std=c++17 -O3 -arch=$(ARCH) --expt-relaxed-constexpr -Icommon $< -o $@
