// main.cpp — every lab binary's main(); SAT_LAB ("5", "8x", ...) is set by the Makefile.
#include "harness.h"

int main(int argc, char** argv) { return sat::lab_main(argc, argv, SAT_LAB); }
