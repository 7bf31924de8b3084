# mk/thin.mk — the thin-matrix SAT (lib/src/sat_thin.cu) and its tests (tests/test_thin.cpp),
# linked into the test binaries until the library's own rules (mk/lib.mk) take them over.
THIN_OBJ := $(OBJ)/lib/src/sat_thin.cu.o
$(OBJ)/tests/test_thin.cpp.o: CXXFLAGS += -Ilib/src
$(OBJ)/tests/test_thin.cpp.o $(THIN_OBJ): lib/src/sat_thin.cuh
$(BUILD)/sat_tests $(BUILD)/student_tests: $(THIN_OBJ)
