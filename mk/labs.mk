# Labs that include another lab's file (from the same folder: solutions/ or the student's labs/)
# are rebuilt when it changes. No lab links another lab's object.
$(OBJ)/solutions/lab6_hybrid.cu.o: solutions/lab4_2r1w.cu solutions/lab5_wavefront.cu
$(OBJ)/labs/lab6_hybrid.cu.o: labs/lab4_2r1w.cu labs/lab5_wavefront.cu
# Lab 8 includes lab 7 (its brlt_transpose), in its program's object and in its test binaries'
# order-checked one (Makefile: ORDER_CHECKED_LABS).
$(OBJ)/solutions/lab8_skss.cu.o: solutions/lab7_register_cache.cu
$(OBJ)/labs/lab8_skss.cu.o: labs/lab7_register_cache.cu
$(OBJ)/checked/solutions/lab8_skss.cu.o: solutions/lab7_register_cache.cu
$(OBJ)/checked/labs/lab8_skss.cu.o: labs/lab7_register_cache.cu
