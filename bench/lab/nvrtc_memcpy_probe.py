# NVRTC lab: which bit copy a user-defined operator's source may use, and what each compiles to.
# The device headers copy bits between values and words with __builtin_memcpy; NVRTC sources start
# with a prelude (GpuCustomReduce.RTC_PRELUDE) for compilers that lack it. This compiles every source
# DumpNvrtcSources.java wrote (the argument: their directory) under four preludes: a byte loop (the
# old one), none (the bare builtin), `memcpy`, and a 4-byte-word loop; with Primer's options, to PTX
# (lines, `prmt` byte permutes, `.local` memory) and to sm_90 cubins (registers, spills, stack from
# ptxas -v). Also asks the preprocessor whether __has_builtin(__builtin_memcpy). Run on the GPU
# machine (CuPy's NVRTC bindings) from the repository root: python3 bench/lab/nvrtc_memcpy_probe.py .lab/rtc
import glob, os, re, sys
from cupy_backends.cuda.libs import nvrtc

OPTIONS = ["--std=c++17", "--device-int128", "-default-device", "-lineinfo"]  # GpuCustomReduce.OPTIONS + Nvrtc's
PRELUDES = {
    "byte": """__device__ __forceinline__ void primer_rtc_memcpy(void* dst, const void* src, unsigned long long n) {
    char* d = (char*)dst;
    const char* s = (const char*)src;
    for (unsigned long long i = 0; i < n; ++i) d[i] = s[i];
}
#define __builtin_memcpy(d, s, n) primer_rtc_memcpy((d), (s), (n))
""",
    "raw": "",
    "memcpy": "#define __builtin_memcpy(d, s, n) memcpy((d), (s), (n))\n",
    "word": """__device__ __forceinline__ void primer_rtc_memcpy(void* dst, const void* src, unsigned long long n) {
    if (n % 4 == 0) {
        unsigned* d = (unsigned*)dst;
        const unsigned* s = (const unsigned*)src;
        for (unsigned long long i = 0; i < n / 4; ++i) d[i] = s[i];
    } else {
        char* d = (char*)dst;
        const char* s = (const char*)src;
        for (unsigned long long i = 0; i < n; ++i) d[i] = s[i];
    }
}
#define __builtin_memcpy(d, s, n) primer_rtc_memcpy((d), (s), (n))
""",
}


def text(x):
    return x.decode(errors="replace") if isinstance(x, bytes) else x


def compile(source, options, want_ptx):
    prog = nvrtc.createProgram(source, "probe.cu", [], [])
    try:
        nvrtc.compileProgram(prog, options)
        ok = True
    except Exception:
        ok = False
    log = text(nvrtc.getProgramLog(prog))
    ptx = text(nvrtc.getPTX(prog)) if ok and want_ptx else None
    nvrtc.destroyProgram(prog)
    return ok, log, ptx


print("nvrtc", nvrtc.getVersion())
probe = ("#if defined(__has_builtin)\n#if __has_builtin(__builtin_memcpy)\n__device__ int has_builtin_memcpy_yes;\n"
         "#else\n__device__ int has_builtin_memcpy_no;\n#endif\n#else\n__device__ int no_has_builtin;\n#endif\n")
ok, log, ptx = compile(probe, ["--std=c++17", "-default-device", "--gpu-architecture=compute_90"], True)
print("__has_builtin probe:", [l.strip() for l in (ptx or "").splitlines() if "has_builtin" in l])
include = "-I" + os.path.abspath("primer-core/src/main/cuda")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.cu"))):
    name = os.path.basename(path)[:-3]
    body = open(path).read()
    for variant, prelude in PRELUDES.items():
        ok, log, ptx = compile(prelude + body, [include] + OPTIONS + ["--gpu-architecture=compute_90"], True)
        if not ok:
            errors = " | ".join(l for l in log.splitlines() if "error" in l)
            print(f"{name:40s} {variant:7s} FAILED: {errors[:300]}")
            continue
        lines = ptx.count("\n")
        prmt = len(re.findall(r"\bprmt\b", ptx))
        local = len(re.findall(r"\.local\b", ptx))
        _, log, _ = compile(prelude + body, [include] + OPTIONS + ["--ptxas-options=-v", "--gpu-architecture=sm_90"], False)
        regs = re.findall(r"Used (\d+) registers", log)
        spill = re.findall(r"(\d+) bytes spill stores", log)
        stack = re.findall(r"(\d+) bytes stack frame", log)
        print(f"{name:40s} {variant:7s} ptx_lines={lines:6d} prmt={prmt:4d} local={local:3d} regs={regs} spill={spill} stack={stack}")
