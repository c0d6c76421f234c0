"""Offsets (int64 .npy, for `primer bench --segments FILE`) of 2^26 values in segments of named length
distributions, and the idle lane steps per value that the segmented reduce's offsets check counts
for them (device/segmented_reduce/check_offsets.cuh). Step 57 used it to place the route's threshold
(bench/results/2026-11-24-nvidia-h200-step57-route-ab.md).

    python3 bench/lab/segment_lengths.py print NAME...    # the counts only
    python3 bench/lab/segment_lengths.py write NAME...    # and /tmp/seg-NAME.npy
"""
import sys

import numpy as np

TOTAL = 1 << 26


def idle_per_value(lengths):
    """Per warp of 32 segments: 32 x its longest short (<= 32) segment, less the short lengths; over all values."""
    pad = (-len(lengths)) % 32
    warps = np.concatenate([lengths, np.zeros(pad, dtype=np.int64)]).reshape(-1, 32)
    short = np.where(warps <= 32, warps, 0)
    return (32 * short.max(axis=1) - short.sum(axis=1)).sum() / lengths.sum()


def draw(name, n, rng):
    if name == "uniform1-8":
        return rng.integers(1, 9, n)
    if name == "uniform1-32":
        return rng.integers(1, 33, n)
    if name.startswith("geometric"):
        return rng.geometric(float(name[len("geometric"):]), n)
    if name.startswith("mix8_"):  # uniform 1-8, with a few percent of 24-32
        lengths = rng.integers(1, 9, n)
        some = rng.random(n) < float(name[len("mix8_"):name.index("pct")]) / 100
        lengths[some] = rng.integers(24, 33, some.sum())
        return lengths
    if name == "pareto2":
        return np.clip(np.floor(rng.pareto(2.0, n) + 1), 1, 1 << 20).astype(np.int64)
    if name == "powerlaw":
        return np.clip(np.floor(rng.pareto(1.2, n) + 1), 1, 1 << 20).astype(np.int64)
    if name == "lognormal":
        return np.clip(np.floor(rng.lognormal(1.0, 1.0, n)) + 1, 1, 1 << 20).astype(np.int64)
    raise SystemExit("unknown distribution " + name)


def main():
    write, names = sys.argv[1] == "write", sys.argv[2:]
    rng = np.random.default_rng(7)
    for name in names:
        lengths = draw(name, TOTAL, rng)  # at least one value each: enough to reach TOTAL
        ends = np.cumsum(lengths)
        last = np.searchsorted(ends, TOTAL)
        lengths = lengths[:last + 1].copy()
        lengths[-1] -= ends[last] - TOTAL
        offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
        print(f"{name:14s} segs={len(lengths)} avg={lengths.mean():.2f} idle/V={idle_per_value(lengths):.2f}")
        if write:
            np.save(f"/tmp/seg-{name}.npy", offsets)


if __name__ == "__main__":
    main()
