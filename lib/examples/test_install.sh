#!/bin/sh
# test_install.sh DIR CUDA_HOME: build lib/examples/consumer.cpp against the copy installed in
# DIR/prefix, once with pkg-config and once with CMake (shared and static targets). With a GPU the
# programs also run and check their output. Ends with "N passed, N failed, 0 skipped" (make test's counts line).
dir=$1
cuda=$2
prefix=$dir/prefix
src=$(dirname "$0")
passed=0
failed=0
check() {  # check NAME COMMAND...: one step, its output kept in DIR/NAME.log
    name=$1
    shift
    if "$@" >"$dir/$name.log" 2>&1; then
        passed=$((passed + 1))
        echo "  ok    $name"
    else
        failed=$((failed + 1))
        echo "  FAIL  $name (log: $dir/$name.log)"
        tail -n 20 "$dir/$name.log"
    fi
}
gpu=0
nvidia-smi -L >/dev/null 2>&1 && gpu=1
run() {  # run NAME BINARY: with a GPU it must check out (exit 0); without one, print the no-GPU line (77)
    if [ $gpu = 1 ]; then check "$1" "$2"; else check "$1" sh -c "'$2'; test \$? -eq 77"; fi
}
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
check pkgconfig-build sh -c "${CXX:-g++} -std=c++17 '$src/consumer.cpp' \$(pkg-config --cflags --libs satlib) -o '$dir/consumer-pc'"
run pkgconfig-run "$dir/consumer-pc"
check cmake-configure cmake -S "$src" -B "$dir/cmake" -DCMAKE_PREFIX_PATH="$prefix" -DCUDAToolkit_ROOT="$cuda" \
    -DCMAKE_CXX_COMPILER="${CXX:-g++}"
check cmake-build cmake --build "$dir/cmake"
run cmake-run-shared "$dir/cmake/consumer"
run cmake-run-static "$dir/cmake/consumer_static"
echo "$passed passed, $failed failed, 0 skipped"
[ $failed = 0 ]
