#!/usr/bin/env python3
"""cupy.sum beside reduce_tail_lab.cu: float32 2^28 and 2^29, single calls between events (median
of 60 after 20 warm-ups, the bench's method) and 20 calls back to back, 7 times (median)."""
import statistics
import cupy as cp

for log_n in (28, 29):
    x = cp.random.random(1 << log_n, dtype=cp.float32)
    for _ in range(20):
        cp.sum(x)
    cp.cuda.runtime.deviceSynchronize()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    single = []
    for _ in range(60):
        start.record(); cp.sum(x); stop.record(); stop.synchronize()
        single.append(cp.cuda.get_elapsed_time(start, stop))
    batch = []
    for _ in range(7):
        start.record()
        for _ in range(20):
            cp.sum(x)
        stop.record(); stop.synchronize()
        batch.append(cp.cuda.get_elapsed_time(start, stop) / 20)
    s, b = statistics.median(single), statistics.median(batch)
    print(f"cupy.sum         n 2^{log_n}: single {s:.4f} ms {4 * x.size / s / 1e6:7.1f} GB/s | "
          f"back to back {b:.4f} ms {4 * x.size / b / 1e6:7.1f} GB/s")
    del x
    cp.get_default_memory_pool().free_all_blocks()
