#!/usr/bin/env python3
"""Baseline timings of CuPy and PyTorch for the primitives that Primer benchmarks.

Usage: python3 bench/baselines.py --out FILE.json [--quick] [--only NAME,...]
           [--segments-out FILE.npy | --segments-in FILE.npy] [--dry-run]

Method: CUDA events around each single call, after warm-up; the median of the timed calls is
reported. Inputs are random and made on the GPU. When a set of buffers is smaller than 3x the L2
cache, the calls rotate among enough copies that the working set exceeds ~200 MB, so the cache
cannot serve them. The JSON is rewritten after every record, so an interrupted run keeps its data.
--dry-run replaces the GPU libraries by NumPy on tiny sizes, to check the script without a GPU.
"""
import argparse, json, math, os, platform, statistics, sys, time
import numpy as np

WARMUP = 3
# torch.cummax of 2^28 elements takes most of a second a call: such calls get fewer timed reps.
SLOW_MS, SLOW_BUDGET_MS = 50.0, 5000.0
SEGMENT_SEED = 20240601
ARG_SCAN_ROW = 4096  # argmax_scan_rows_f32: rows of this length (Primer scans them as segments by offsets)
SIZES_LOG2 = (16, 20, 24)  # the "sizes" rows: sum and cumsum of float32 (Primer's SizesBench)


def int_range(dtype):
    """Random integers in [-1000, 1000), or [-100, 100) where the type is narrower (int8)."""
    return (-100, 100) if np.dtype(dtype).itemsize == 1 else (-1000, 1000)


class CupyLib:
    """One library's side: random inputs, event timing, sync, free, output size, and the ops."""
    name = "cupy"

    def __init__(self):
        import cupy
        self.xp = cupy
        props = cupy.cuda.runtime.getDeviceProperties(0)
        self.gpu = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        self.l2_bytes = int(props.get("l2CacheSize", 60 << 20))

    def env(self):
        cp, rt = self.xp, self.xp.cuda.runtime
        info = {"cupy": cp.__version__, "cuda_runtime": rt.runtimeGetVersion(),
                "cuda_driver": rt.driverGetVersion(), "gpu": self.gpu, "l2_bytes": self.l2_bytes,
                "CUPY_ACCELERATORS": os.environ.get("CUPY_ACCELERATORS", "(default)")}
        try:
            from cupy._core import _accelerator
            info["routine_accelerators"] = list(_accelerator.get_routine_accelerators())
        except Exception as e:  # private API; informative only
            info["routine_accelerators"] = f"unknown ({e})"
        return info

    def random(self, shape, dtype):
        if np.dtype(dtype).kind == "f":
            return self.xp.random.random(shape, dtype=dtype)
        lo, hi = int_range(dtype)
        return self.xp.random.randint(lo, hi, shape, dtype=dtype)

    def time_ms(self, call):
        cuda = self.xp.cuda
        start, stop = cuda.Event(), cuda.Event()
        start.record()
        call()
        stop.record()
        stop.synchronize()
        return cuda.get_elapsed_time(start, stop)

    def sync(self):
        self.xp.cuda.runtime.deviceSynchronize()

    def free(self):
        self.sync()
        self.xp.get_default_memory_pool().free_all_blocks()

    def describe(self, y): return y.nbytes, str(y.dtype)

    def copy(self, x, out): out[...] = x; return out
    def sum(self, x): return self.xp.sum(x)
    def max(self, x): return self.xp.max(x)
    def argmax(self, x): return self.xp.argmax(x)
    def rows_sum(self, x): return self.xp.sum(x, axis=1)
    def cumsum(self, x): return self.xp.cumsum(x)
    def cumsum_keep(self, x): return self.xp.cumsum(x, dtype=x.dtype)  # int32 stays int32
    def cummax(self, x): return self.xp.maximum.accumulate(x)
    def cummin(self, x): return self.xp.minimum.accumulate(x)
    def cumprod(self, x): return self.xp.cumprod(x)
    def cumargmax(self, x): raise NotImplementedError("CuPy has no cumulative argmax")
    def cumargmax_rows(self, x): raise NotImplementedError("CuPy has no cumulative argmax")
    def scalar(self, y): return float(y)


class NumpyLib(CupyLib):
    """Stand-in for --dry-run: same code paths on the CPU, timed with the host clock."""
    name = "cupy"

    def __init__(self):
        self.xp, self.gpu, self.l2_bytes = np, "none (dry run)", 256 << 10
        self.rng = np.random.default_rng(1)

    def env(self):
        return {"numpy_stand_in": np.__version__, "gpu": self.gpu, "l2_bytes": self.l2_bytes}

    def random(self, shape, dtype):
        if np.dtype(dtype).kind == "f":
            return self.rng.random(shape, dtype=dtype)
        lo, hi = int_range(dtype)
        return self.rng.integers(lo, hi, shape, dtype=dtype)

    def time_ms(self, call):
        t0 = time.perf_counter_ns()
        call()
        return (time.perf_counter_ns() - t0) / 1e6

    def sync(self): pass
    def free(self): pass


class TorchLib:
    name = "torch"

    def __init__(self):
        import torch
        self.t, self.dev = torch, torch.device("cuda")
        props = torch.cuda.get_device_properties(0)
        self.gpu = props.name
        self.l2_bytes = int(getattr(props, "L2_cache_size", 60 << 20))

    def env(self):
        t = self.t
        return {"torch": t.__version__, "torch_cuda": t.version.cuda, "gpu": self.gpu,
                "l2_bytes": self.l2_bytes}

    def random(self, shape, dtype):
        if np.dtype(dtype).kind == "f":
            return self.t.rand(shape, dtype=getattr(self.t, dtype), device=self.dev)
        lo, hi = int_range(dtype)
        return self.t.randint(lo, hi, shape, dtype=getattr(self.t, dtype), device=self.dev)

    def time_ms(self, call):
        start = self.t.cuda.Event(enable_timing=True)
        stop = self.t.cuda.Event(enable_timing=True)
        start.record()
        call()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    def sync(self):
        self.t.cuda.synchronize()

    def free(self):
        self.sync()
        self.t.cuda.empty_cache()

    def describe(self, y): return y.numel() * y.element_size(), str(y.dtype).removeprefix("torch.")

    def copy(self, x, out): return out.copy_(x)
    def sum(self, x): return self.t.sum(x)
    def max(self, x): return self.t.max(x)
    def argmax(self, x): return self.t.argmax(x)
    def rows_sum(self, x): return self.t.sum(x, dim=1)
    def cumsum(self, x): return self.t.cumsum(x, 0)
    def cumsum_keep(self, x): return self.t.cumsum(x, 0, dtype=x.dtype)  # int32 stays int32
    def cummax(self, x): return self.t.cummax(x, 0).values  # it writes int64 indices too
    def cummin(self, x): return self.t.cummin(x, 0).values  # as cummax
    def cumprod(self, x): return self.t.cumprod(x, 0)
    def cumargmax(self, x): return self.t.cummax(x, 0).indices  # and the values
    def cumargmax_rows(self, x): return self.t.cummax(x, 1).indices  # each row's, counted from its start
    def scalar(self, y): return y.item()


def buffer_count(lib, set_bytes):
    """Copies of an input set needed so that rotating through them defeats the L2 cache."""
    if set_bytes >= 3 * lib.l2_bytes:
        return 1
    target = max(200 * 10**6, 3.5 * lib.l2_bytes) if lib.l2_bytes > (1 << 20) else 4 * lib.l2_bytes
    return math.ceil(target / set_bytes)


def time_calls(lib, call, reps):
    """Warm up, then time `reps` single calls with events (fewer for a call slower than SLOW_MS, so
    that it takes about SLOW_BUDGET_MS; at least 5); returns (times_ms, warm-up result)."""
    for i in range(WARMUP):
        out = call(i)
    lib.sync()
    first = lib.time_ms(lambda: call(WARMUP))
    if first > SLOW_MS:
        reps = max(5, min(reps, int(SLOW_BUDGET_MS / first)))
    return [first] + [lib.time_ms(lambda: call(WARMUP + 1 + r)) for r in range(reps - 1)], out


def record(name, lib_name, op, dtype, shape, in_bytes, out, lib, times, nbuf, **extra):
    out_bytes, out_dtype = lib.describe(out)
    total = in_bytes + out_bytes
    ms = statistics.median(times)
    return {"name": name, "library": lib_name, "op": op, "dtype": dtype, "shape": list(shape),
            "n": math.prod(shape), "bytes": total, "ms": ms, "ms_min": min(times),
            "gbps": total / ms / 1e6, "reps": len(times), "out_dtype": out_dtype,
            "buffers": nbuf, **extra}


def array_op(lib, name, op, dtype, shape, reps):
    in_bytes = math.prod(shape) * np.dtype(dtype).itemsize
    nbuf = buffer_count(lib, in_bytes * (2 if op == "copy" else 1))
    xs = [lib.random(shape, dtype) for _ in range(nbuf)]
    if op == "copy":
        outs = [lib.random(shape, dtype) for _ in range(nbuf)]  # destinations, pages touched
        call = lambda i: lib.copy(xs[i % nbuf], outs[i % nbuf])
    else:
        fn = getattr(lib, op)
        call = lambda i: fn(xs[i % nbuf])
    times, out = time_calls(lib, call, reps)
    return [record(name, lib.name, op, dtype, shape, in_bytes, out, lib, times, nbuf)]


def sum_sync(lib, name, op, dtype, shape, reps):
    """Host-observed latency of a reduction whose result is read back on the host."""
    in_bytes = math.prod(shape) * np.dtype(dtype).itemsize
    nbuf = buffer_count(lib, in_bytes)
    xs = [lib.random(shape, dtype) for _ in range(nbuf)]
    for i in range(10 * WARMUP):
        lib.scalar(lib.sum(xs[i % nbuf]))
    lib.sync()
    times = []
    for r in range(reps):
        x = xs[r % nbuf]
        t0 = time.perf_counter_ns()
        lib.scalar(lib.sum(x))
        times.append((time.perf_counter_ns() - t0) / 1e6)
    out = lib.sum(xs[0])
    return [record(name, lib.name, "sum+readback", dtype, shape, in_bytes, out, lib, times, nbuf,
                   timer="host perf_counter_ns")]


def segment_offsets(n, seed=SEGMENT_SEED):
    """Offsets (int64, nseg+1) of power-law segment lengths floor(pareto(1.2)+1) in [1, 2^20]."""
    rng, chunks, total = np.random.default_rng(seed), [], 0
    while total < n:
        lens = np.clip(np.floor(rng.pareto(1.2, size=1 << 20) + 1), 1, 1 << 20).astype(np.int64)
        chunks.append(lens)
        total += int(lens.sum())
    lens = np.concatenate(chunks)
    ends = np.cumsum(lens)
    last = int(np.searchsorted(ends, n))  # first segment reaching n; trim it to end exactly at n
    lens = lens[:last + 1]
    lens[-1] -= int(ends[last]) - n
    return np.concatenate(([0], np.cumsum(lens))).astype(np.int64)


def segments(lib, name, op, dtype, shape, reps, offsets):
    """torch.segment_reduce and an index_add_ (torch_scatter style) scatter; no CuPy baseline."""
    if lib.name != "torch":
        return []
    t, n, nseg = lib.t, int(offsets[-1]), len(offsets) - 1
    size = np.dtype(dtype).itemsize
    lengths = t.from_numpy(np.diff(offsets)).to(lib.dev)
    nbuf = buffer_count(lib, size * n)
    xs = [lib.random((n,), dtype) for _ in range(nbuf)]
    results = []
    try:
        def seg(x):
            return t.segment_reduce(x, "sum", lengths=lengths, unsafe=True)
        times, out = time_calls(lib, lambda i: seg(xs[i % nbuf]), reps)
        results.append(record(name, "torch", "segment_reduce", dtype, (n,), size * n + 8 * nseg, out,
                              lib, times, nbuf, segments=nseg))
    except Exception as e:
        results.append({"name": name, "library": "torch", "error": f"{type(e).__name__}: {e}"})
    try:
        ids = t.repeat_interleave(t.arange(nseg, device=lib.dev), lengths, output_size=n)

        def scatter(x):
            return t.zeros(nseg, dtype=x.dtype, device=lib.dev).index_add_(0, ids, x)
        times, out = time_calls(lib, lambda i: scatter(xs[i % nbuf]), reps)
        results.append(record(name, "torch-index_add", "index_add_", dtype, (n,), size * n + 8 * n,
                              out, lib, times, nbuf, segments=nseg))
    except Exception as e:
        results.append({"name": name, "library": "torch-index_add",
                        "error": f"{type(e).__name__}: {e}"})
    return results


def plan(quick, dry):
    """(name, runner, op, dtype, shape); names are what the Java side pairs with."""
    n = 2**16 if dry else 2**24 if quick else 2**28
    rows_a, rows_b = ((64, 1024), (4096, 64)) if dry else \
        ((2048, 8192), (262144, 64)) if quick else ((2048, 262144), (4194304, 64))
    rows_d = (16, 4096) if dry else (4096, 4096) if quick else (65536, 4096)

    def rows_c(dtype):  # rows of 1 KiB
        return (256 if dry else 65536 if quick else 1048576, 1024 // np.dtype(dtype).itemsize)
    sync_n = 2**12 if dry else 2**20
    seg_n = n if dry or quick else 2**26
    f32 = "float32"
    return [("copy_f32", array_op, "copy", f32, (n,)),
            ("sum_f32", array_op, "sum", f32, (n,)),
            ("sum_i32", array_op, "sum", "int32", (n,)),
            ("sum_f64", array_op, "sum", "float64", (n,)),
            ("max_f32", array_op, "max", f32, (n,)),
            ("argmax_f32", array_op, "argmax", f32, (n,)),
            ("sum_i8", array_op, "sum", "int8", (n,)),
            ("argmax_i8", array_op, "argmax", "int8", (n,)),
            ("sum_sync_f32_2^20", sum_sync, "sum", f32, (sync_n,)),
            ("rows_sum_f32_2048x262144", array_op, "rows_sum", f32, rows_a),
            ("rows_sum_f32_4Mx64", array_op, "rows_sum", f32, rows_b),
            ("rows_sum_f32_1Mx256", array_op, "rows_sum", f32, rows_c(f32)),
            ("rows_sum_f32_64Kx4096", array_op, "rows_sum", f32, rows_d),
            ("rows_sum_f64_1Mx128", array_op, "rows_sum", "float64", rows_c("float64")),
            ("rows_sum_i8_1Mx1024", array_op, "rows_sum", "int8", rows_c("int8")),
            ("rows_sum_i8_2048x262144", array_op, "rows_sum", "int8", rows_a),
            ("segments_sum_f32_powerlaw", segments, "segments", f32, (seg_n,)),
            ("segments_sum_i64_powerlaw", segments, "segments", "int64", (seg_n,)),
            ("cumsum_f32", array_op, "cumsum", f32, (n,)),
            ("cumsum_i32", array_op, "cumsum", "int32", (n,)),
            ("cumsum_i32_to_i32", array_op, "cumsum_keep", "int32", (n,)),
            ("cumsum_i64", array_op, "cumsum", "int64", (n,)),
            ("cumsum_f64", array_op, "cumsum", "float64", (n,)),
            # Products of their random data underflow (floats) or wrap (integers) to zero: a multiply
            # costs the same (Primer's rows multiply factors whose products stay exact).
            ("cumprod_f64", array_op, "cumprod", "float64", (n,)),
            ("cumprod_i64", array_op, "cumprod", "int64", (n,)),
            ("cumsum_i8", array_op, "cumsum", "int8", (n,)),
            ("cumsum_i8_to_i8", array_op, "cumsum_keep", "int8", (n,)),
            ("cummax_f32", array_op, "cummax", f32, (n,)),
            ("cummax_f64", array_op, "cummax", "float64", (n,)),
            ("cummax_i64", array_op, "cummax", "int64", (n,)),
            ("cummin_f64", array_op, "cummin", "float64", (n,)),
            ("cummin_i64", array_op, "cummin", "int64", (n,)),
            ("argmax_scan_f32", array_op, "cumargmax", f32, (n,)),
            ("argmax_scan_i32", array_op, "cumargmax", "int32", (n,)),
            ("argmax_scan_f64", array_op, "cumargmax", "float64", (n,)),
            ("argmax_scan_i8", array_op, "cumargmax", "int8", (n,)),
            ("argmax_scan_rows_f32", array_op, "cumargmax_rows", f32, (n // ARG_SCAN_ROW, ARG_SCAN_ROW))] + [
        # Smaller sizes, where a call's fixed costs (launches, passes) weigh as much as bandwidth.
        (f"{op}_f32_2^{k}", array_op, op, f32, (2**k,)) for k in SIZES_LOG2 for op in ("sum", "cumsum")]


def load_libs(dry):
    libs, errors = [], []
    for cls in ([NumpyLib] if dry else [CupyLib, TorchLib]):
        try:
            libs.append(cls())
        except Exception as e:
            errors.append({"name": "env", "library": cls.name,
                           "error": f"unavailable: {type(e).__name__}: {e}"})
    return libs, errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True, help="JSON file to write")
    ap.add_argument("--quick", action="store_true", help="2^24 sizes and few repetitions")
    ap.add_argument("--only", help="comma-separated benchmark names")
    ap.add_argument("--segments-out", help="save the segment offsets used (int64 .npy)")
    ap.add_argument("--segments-in", help="use these segment offsets (int64 .npy) instead")
    ap.add_argument("--dry-run", action="store_true", help="NumPy stand-in, tiny sizes, no GPU")
    args = ap.parse_args()
    reps, sync_reps = (10, 50) if args.quick or args.dry_run else (50, 200)
    benches = plan(args.quick, args.dry_run)
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {b[0] for b in benches}
        if unknown:
            ap.error(f"unknown benchmark(s): {', '.join(sorted(unknown))}")
        benches = [b for b in benches if b[0] in wanted]

    libs, records = load_libs(args.dry_run)
    env = {"name": "env", "python": platform.python_version(), "numpy": np.__version__,
           "host": platform.node(), "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
           "quick": args.quick, "dry_run": args.dry_run, "warmup": WARMUP}
    for lib in libs:
        env[lib.name] = lib.env()
    records.insert(0, env)
    print(json.dumps(env), flush=True)
    for r in records[1:]:
        print(f"{r['library']}: {r['error']}", flush=True)

    def save():
        with open(args.out, "w") as f:
            json.dump(records, f, indent=1)

    offsets = None
    if any(b[1] is segments for b in benches):
        if args.segments_in:
            offsets = np.load(args.segments_in).astype(np.int64)
            if offsets[0] != 0 or np.any(np.diff(offsets) < 0):
                sys.exit(f"{args.segments_in}: offsets must start at 0 and never decrease")
        else:
            offsets = segment_offsets(next(b[4][0] for b in benches if b[1] is segments))
        if args.segments_out:
            np.save(args.segments_out, offsets)
        print(f"segments: {len(offsets) - 1} over {offsets[-1]} values", flush=True)

    for name, runner, op, dtype, shape in benches:
        for lib in libs:
            try:
                extra = (offsets,) if runner is segments else ()
                n_reps = sync_reps if runner is sum_sync else reps
                got = runner(lib, name, op, dtype, shape, n_reps, *extra)
            except Exception as e:
                got = [{"name": name, "library": lib.name, "error": f"{type(e).__name__}: {e}"}]
            lib.free()  # the runner's buffers are gone with its frame
            for r in got:
                if "error" in r:
                    print(f"{r['name']:28s} {r['library']:16s} ERROR {r['error']}", flush=True)
                else:
                    print(f"{r['name']:28s} {r['library']:16s} {r['ms']:10.4f} ms "
                          f"{r['gbps']:9.1f} GB/s  (min {r['ms_min']:.4f}, {r['reps']} reps, "
                          f"{r['buffers']} bufs, out {r['out_dtype']})", flush=True)
            records.extend(got)
            save()
    save()

    print(f"\n{'name':28s} {'library':16s} {'ms':>10s} {'GB/s':>9s}")
    for r in records[1:]:
        if "error" in r:
            print(f"{r['name']:28s} {r['library']:16s} {'error':>10s}")
        else:
            print(f"{r['name']:28s} {r['library']:16s} {r['ms']:10.4f} {r['gbps']:9.1f}")


if __name__ == "__main__":
    main()
