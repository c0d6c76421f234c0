# torch.sum(dim=1) and cupy.sum(axis=1) on the float32 shapes of rows_warp_lab.cu (1 GiB each), timed
# as the lab times: CUDA events around one call, median of 20 after 3 warm-up calls. Run with python3
# on the GPU machine.
import cupy as cp
import torch

N = 1 << 28


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


x = torch.rand(N, device="cuda", dtype=torch.float32) * 2 - 1
for cols in (256, 1024, 512, 4096, 16384):
    m = x.view(N // cols, cols)
    c = cp.asarray(m)
    t = time_ms(lambda: torch.sum(m, dim=1))
    k = time_ms(lambda: cp.sum(c, axis=1))
    print(f"{N // cols}x{cols}: torch {t:.4f} ms {4.0 * N / t / 1e6:.1f} GB/s, cupy {k:.4f} ms {4.0 * N / k / 1e6:.1f} GB/s")
