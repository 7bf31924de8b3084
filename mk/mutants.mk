# make mutants: every planted bug in tests/mutants/ must lose correctness points (tools/mutants.py).
# Without a GPU the CPU mutants (lab 1) are graded and the GPU ones compiled only (skipped unless
# they fail to compile). MUTANTS=name,name grades only those, MUTANTS_LAB=5,8x those labs';
# MUTANTS_FLAGS passes more options (tools/mutants.py run --help).
.PHONY: mutants mutants-check
mutants: $(DEPS_STAMP)
	@$(PYTHON) tools/mutants.py run $(if $(MUTANTS),--only $(MUTANTS)) $(if $(MUTANTS_LAB),--lab $(MUTANTS_LAB)) $(MUTANTS_FLAGS)

# Every spec still applies to solutions/ (each anchor found once); also a [grader] test of make test.
mutants-check:
	@$(PYTHON) tools/mutants.py check
