#!/usr/bin/env bash
# Builds everything (kernels included, where nvcc is present) and runs the whole test suite.
# GPU tests run where a GPU is present and are skipped, with the reason, where none is.
set -euo pipefail
root=$(cd "$(dirname "$(readlink -f "$0")")" && pwd)
. "$root/scripts/jdk.sh"
cd "$root"
exec mvn -B "$@" verify
