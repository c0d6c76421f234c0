"""Device-to-device copy bandwidth by footprint: is a 2 GB -> 2 GB copy as fast as the 1 GB -> 1 GB
copy that `primer bench` measures (copy_f32)? The 8-byte scans of 2^28 elements move twice copy_f32's
bytes, so their "% of copy" depends on it. Run on the GPU machine: python3 bench/lab/copy_sizes.py
Prints GB/s counting read + write, median of 30 (CUDA events), buffers filled with random bits."""
import cupy as cp

def copy_gbs(nbytes, reps=30):
    a = cp.random.randint(0, 2**31 - 1, size=nbytes // 4, dtype=cp.int32)
    b = cp.empty_like(a)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for r in range(reps + 3):
        start.record()
        cp.cuda.runtime.memcpy(b.data.ptr, a.data.ptr, nbytes, cp.cuda.runtime.memcpyDeviceToDevice)
        stop.record()
        stop.synchronize()
        if r >= 3:
            times.append(cp.cuda.get_elapsed_time(start, stop))
    assert bool((a == b).all()), "copy mismatch"
    times.sort()
    ms = times[len(times) // 2]
    del a, b
    cp.get_default_memory_pool().free_all_blocks()
    return ms, 2 * nbytes / ms / 1e6

print("bytes each way | ms (median) | GB/s (read + write)")
for gib in (0.25, 0.5, 1, 2, 3, 4):
    nbytes = int(gib * 2**30)
    ms, gbs = copy_gbs(nbytes)
    print(f"{gib:5.2f} GiB | {ms:.4f} | {gbs:.0f}")
