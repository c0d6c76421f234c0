// Segmented-reduce lab: the three launches of a CSR segmented reduce (segments_small, segments_long,
// segments_combine) on 2^26 values under several segment-length distributions, for float32 and
// float64 sums, float32 max and argmax and exact int64 and int32 sums. Every output is poisoned before the
// runs and checked against a host fold afterwards; each row prints an FNV-1a hash of the output
// bits, so two builds that must agree bit for bit can be compared line by line.
//
// Build it against two header trees to compare a change (BASELINE: the tree before 2026-11-21's
// change, whose segments_long takes no output and whose segments_small ran at two blocks per SM):
//   nvcc -std=c++17 -O3 -arch=sm_90 -DBASELINE -I /tmp/orig/primer-core/src/main/cuda -o .lab/segments_base bench/lab/segments_lab.cu
//   nvcc -std=c++17 -O3 -arch=sm_90 -I primer-core/src/main/cuda -o .lab/segments_lab bench/lab/segments_lab.cu
// argv[1]: optional comma-separated parts of row names to run (lab_common.cuh's selected()).
#include "lab_segments.cuh"

int main(int argc, char** argv) { return segments_lab_main<ClassicOnly>(argc, argv, 0); }
