#!/usr/bin/env bash
# Compiles every kernel translation unit (device/*.cu, ladder/*.cu) into a fatbin:
# SASS for sm_80, sm_89 and sm_90, PTX for compute_90 (so newer GPUs JIT it).
# A warning is an error. ptxas's resource report (registers, shared memory, spills) is kept.
# A unit is recompiled only when its source, any header, or the flags changed.
# Usage: build-kernels.sh SRC_DIR OUT_DIR REPORT_DIR
set -euo pipefail
src=$1 out=$2 report=$3
mkdir -p "$out" "$report"

# Hash of every kernel source: results files name the kernels they measured by it.
( cd "$src" && find . -name '*.cu' -o -name '*.cuh' | LC_ALL=C sort | xargs sha256sum ) |
  sha256sum | cut -c1-16 > "$out/SOURCES.sha256"

nvcc=""
if [ -n "${CUDA_HOME:-}" ] && [ -x "$CUDA_HOME/bin/nvcc" ]; then nvcc=$CUDA_HOME/bin/nvcc
elif command -v nvcc >/dev/null 2>&1; then nvcc=$(command -v nvcc)
elif [ -x /usr/local/cuda/bin/nvcc ]; then nvcc=/usr/local/cuda/bin/nvcc
fi
if [ -z "$nvcc" ] || [ "${PRIMER_NO_CUDA:-}" = 1 ]; then
  echo "[primer] nvcc not found (PATH, CUDA_HOME): building a CPU-only jar, GPU kernels are not included" >&2
  rm -f "$out"/*.fatbin
  exit 0
fi

flags=(-std=c++17 -O3 -fatbin -I "$src"
  -gencode arch=compute_80,code=sm_80
  -gencode arch=compute_89,code=sm_89
  -gencode arch=compute_90,code=sm_90
  -gencode arch=compute_90,code=compute_90
  -Werror all-warnings -Xcompiler -Wall,-Werror
  -Xptxas -v,-warn-spills,-warn-lmem-usage)
headers_hash=$( (cd "$src" && find . -name '*.cuh' | LC_ALL=C sort | xargs -r sha256sum; "$nvcc" --version; echo "${flags[*]}") | sha256sum | cut -c1-16)

units=$(cd "$src" && find device ladder -name '*.cu' 2>/dev/null | LC_ALL=C sort)
pids=() names=()
for unit in $units; do
  name=$(basename "$unit" .cu)
  stamp="$report/$name.stamp"
  want="$(sha256sum "$src/$unit" | cut -c1-16)-$headers_hash"
  if [ -f "$out/$name.fatbin" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
    continue
  fi
  echo "[primer] nvcc $unit"
  ( "$nvcc" "${flags[@]}" -o "$out/$name.fatbin" "$src/$unit" > "$report/$name.ptxas.txt" 2>&1 \
      && echo "$want" > "$stamp" ) &
  pids+=($!) names+=("$name")
done
failed=0
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    echo "[primer] kernel compile FAILED: ${names[$i]}" >&2
    cat "$report/${names[$i]}.ptxas.txt" >&2
    rm -f "$out/${names[$i]}.fatbin"
    failed=1
  fi
done
exit $failed
