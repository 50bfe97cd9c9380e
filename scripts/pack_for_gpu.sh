#!/usr/bin/env bash
# Builds normbench on this machine (no GPU needed) and packs what a GPU machine needs to run
# scripts/gpu_check.sh without building there: GPU time is scarce, compiling is not.
#   .carry/build  the build folder without objects: binaries, test plugins, CTest and install
#                 files (the plugin step installs from it)
#   .carry/lib    the shared libraries the binaries link (libfmt), for LD_LIBRARY_PATH
# The binaries and CTest files name the source tree by the absolute path it was built at, so
# on the GPU machine that path must lead to the copy of the tree:
#   ln -sfn "$PWD" <this checkout's path>; ln -sfn "$PWD/.carry/build" build
#   export LD_LIBRARY_PATH=$PWD/.carry/lib; BUILD=build scripts/gpu_check.sh gpu-tests smoke ...
# Add .carry to .git/info/exclude; it is not part of the repository.
#
#   scripts/pack_for_gpu.sh
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh > /dev/null
rm -rf .carry/build .carry/lib
mkdir -p .carry/build .carry/lib
(cd build && find . -path '*/CMakeFiles' -prune -o -type f ! -name '*.a' ! -name '.ninja*' \
   ! -name 'CMakeCache.txt' ! -name 'normbench_cpu_tests' ! -path './Testing/*' -print |
   tar -cf - -T -) | tar -xf - -C .carry/build
for lib in $(ldd build/normbench | awk '/libfmt/ {print $3}'); do
  cp -L "$lib" .carry/lib/
done
du -sh .carry
