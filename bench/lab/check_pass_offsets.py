# Writes int64 offsets over 2^26 values: `count` segments of random lengths with a heavy tail (a Pareto draw,
# scaled so that they fill the values; the last offset is 2^26), for `primer bench --segments`. Step 88 timed the
# offsets' check on them at 3.5-9M segments (call 6 of bench/results/2026-11-26-nvidia-h200-step88-ab.md).
# Run with python3 on the GPU machine: python3 check_pass_offsets.py COUNT OUT.npy
import sys
import numpy as np
count, path = int(sys.argv[1]), sys.argv[2]
n = 1 << 26
rng = np.random.default_rng(88)
w = rng.pareto(1.5, count) + 1.0
lengths = np.floor(w / w.sum() * (n - count)).astype(np.int64) + 1  # at least one value each
offsets = np.zeros(count + 1, dtype=np.int64)
np.cumsum(lengths, out=offsets[1:])
offsets[-1] = n
assert offsets[-2] <= n
np.save(path, offsets)
print(path, count, "segments, longest", int(lengths.max()))
