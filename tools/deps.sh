#!/usr/bin/env bash
# Installs what SAT Labs needs besides the CUDA toolkit:
#   Catch2 v2, stb and CLI11 (headers): Debian packages catch2, libstb-dev and libcli11-dev,
#     unpacked into $1/root
#     (so the folder can travel to a GPU machine that has no package registry); when they
#     cannot be downloaded, as root they are installed system-wide with apt-get instead.
#   numpy and matplotlib for plots/: pip (system-wide as root, else into $1/python).
set -u
deps_dir=${1:-.deps}
root_dir="$deps_dir/root"
need=()
[ -f "$root_dir/usr/include/catch2/catch.hpp" ] || [ -f /usr/include/catch2/catch.hpp ] || need+=(catch2)
[ -f "$root_dir/usr/include/stb/stb_image.h" ] || [ -f /usr/include/stb/stb_image.h ] || need+=(libstb-dev)
[ -f "$root_dir/usr/include/CLI/CLI.hpp" ] || [ -f /usr/include/CLI/CLI.hpp ] || need+=(libcli11-dev)

if [ ${#need[@]} -gt 0 ]; then
    echo "deps: fetching ${need[*]} into $root_dir"
    mkdir -p "$deps_dir/debs" "$root_dir"
    fetch() { (cd "$deps_dir/debs" && apt-get download -q "${need[@]}") >/dev/null 2>&1; }
    if ! fetch && [ "$(id -u)" = 0 ]; then
        apt-get update -q >/dev/null 2>&1 && fetch
    fi
    for deb in "$deps_dir"/debs/*.deb; do [ -f "$deb" ] && dpkg -x "$deb" "$root_dir"; done
    have() { [ -f "$root_dir/usr/include/$1" ] || [ -f "/usr/include/$1" ]; }
    if ! have catch2/catch.hpp || ! have stb/stb_image.h || ! have CLI/CLI.hpp; then
        if [ "$(id -u)" = 0 ] && apt-get install -y -q "${need[@]}" >/dev/null 2>&1; then
            echo "deps: installed ${need[*]} system-wide"
        else
            echo "deps: could not get ${need[*]} (apt-get download failed; on a machine without a" >&2
            echo "      package registry, copy a .deps/ folder made elsewhere with 'make deps')" >&2
            exit 1
        fi
    fi
fi

if ! python3 -c "import numpy, matplotlib" >/dev/null 2>&1 &&
   ! PYTHONPATH="$deps_dir/python" python3 -c "import numpy, matplotlib" >/dev/null 2>&1; then
    echo "deps: installing numpy and matplotlib"
    if [ "$(id -u)" = 0 ]; then
        python3 -m pip install -q numpy matplotlib || echo "deps: numpy/matplotlib unavailable: make plots will not run" >&2
    else
        python3 -m pip install -q --target "$deps_dir/python" numpy matplotlib ||
            echo "deps: numpy/matplotlib unavailable: make plots will not run" >&2
    fi
fi
exit 0
