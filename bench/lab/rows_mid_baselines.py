# torch.sum(dim=1) and cupy.sum(axis=1) on the shapes of rows_warp_lab.cu (1 GiB each, rows of 1 to
# 64 KiB), timed as the lab times: CUDA events around one call, median of 20 after 3 warm-up calls.
# Run with python3 on the GPU machine; argument "f64" for float64 (default float32).
import sys

import cupy as cp
import torch


def time_ms(f, warmups=3, reps=20):
    for _ in range(warmups):
        f()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


dtype = torch.float64 if sys.argv[1:] == ["f64"] else torch.float32
size = 8 if dtype == torch.float64 else 4
n = (1 << 30) // size
x = torch.rand(n, device="cuda", dtype=dtype) * 2 - 1
for row_bytes in (1024, 4096, 2048, 16384, 65536):
    cols = row_bytes // size
    m = x.view(n // cols, cols)
    c = cp.asarray(m)
    t = time_ms(lambda: torch.sum(m, dim=1))
    k = time_ms(lambda: cp.sum(c, axis=1))
    print(f"{n // cols}x{cols}: torch {t:.4f} ms {size * n / t / 1e6:.1f} GB/s, cupy {k:.4f} ms {size * n / k / 1e6:.1f} GB/s")
