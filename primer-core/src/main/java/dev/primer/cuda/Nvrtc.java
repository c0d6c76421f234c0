package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Run-time compilation of CUDA C++ through NVRTC ({@code libnvrtc.so.*}, optional): kernels that
 * are specialised at run time, such as user-defined operators. Results are cached on disk under
 * {@code $PRIMER_CACHE/nvrtc} (default {@code ~/.cache/primer/nvrtc}), keyed by source, in-memory
 * headers, the content hash of the include directory's headers (never its path, which may differ
 * per process), the other options, NVRTC version and target architecture, so a program compiles
 * each kernel once per machine. Entries are never removed: each new source, header set, NVRTC
 * version or architecture adds one file; only a damaged one is deleted and compiled again
 * ({@link CubinCacheFile}).
 *
 * <p>The library is looked for under its usual names and CUDA's install paths; the system property
 * {@code primer.nvrtc.library} names the one file to load instead (a path where NVRTC is not
 * found otherwise; a path that does not exist runs as a machine without NVRTC).
 */
public final class Nvrtc {
    private Nvrtc() {}

    private static final class Api {
        static final String LOAD_ERROR;
        static final MethodHandle version, create, compile, logSize, log, cubinSize, cubin, destroy, errorString;
        static {
            NativeLibrary lib = null;
            String error = null;
            String named = System.getProperty(LIBRARY_PROPERTY);
            List<String> candidates = named != null ? List.of(named) : defaultCandidates();
            try {
                lib = NativeLibrary.open(candidates);
            } catch (UnsatisfiedLinkError e) {
                error = named != null
                        ? "NVRTC not loaded from " + named + " (-D" + LIBRARY_PROPERTY + "): user-defined operators need it on the GPU"
                        : "NVRTC (libnvrtc.so.13 or .12) not found: user-defined operators need it on the GPU";
            }
            LOAD_ERROR = error;
            NativeLibrary l = lib;
            version = l == null ? null : l.require("nvrtcVersion", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
            create = l == null ? null : l.require("nvrtcCreateProgram",
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS));
            compile = l == null ? null : l.require("nvrtcCompileProgram", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
            logSize = l == null ? null : l.require("nvrtcGetProgramLogSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
            log = l == null ? null : l.require("nvrtcGetProgramLog", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
            cubinSize = l == null ? null : l.require("nvrtcGetCUBINSize", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
            cubin = l == null ? null : l.require("nvrtcGetCUBIN", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS));
            destroy = l == null ? null : l.require("nvrtcDestroyProgram", FunctionDescriptor.of(JAVA_INT, ADDRESS));
            errorString = l == null ? null : l.require("nvrtcGetErrorString", FunctionDescriptor.of(ADDRESS, JAVA_INT));
        }
    }

    /** The system property that names the NVRTC library to load, instead of the usual search. */
    public static final String LIBRARY_PROPERTY = "primer.nvrtc.library";

    private static List<String> defaultCandidates() {
        List<String> candidates = new ArrayList<>();
        String cudaHome = System.getenv("CUDA_HOME");
        for (String v : List.of("13", "12")) {
            candidates.add("libnvrtc.so." + v);
            if (cudaHome != null) candidates.add(cudaHome + "/lib64/libnvrtc.so." + v);
            candidates.add("/usr/local/cuda/lib64/libnvrtc.so." + v);
            candidates.add("/usr/local/cuda-" + v + ".0/targets/x86_64-linux/lib/libnvrtc.so." + v);
        }
        candidates.add("libnvrtc.so");
        return candidates;
    }

    public static boolean isAvailable() { return Api.LOAD_ERROR == null; }

    public static String unavailableReason() { return Api.LOAD_ERROR; }

    /** e.g. "13.0". */
    public static String version() {
        require();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment major = arena.allocate(JAVA_INT), minor = arena.allocate(JAVA_INT);
            check((int) Api.version.invokeExact(major, minor), "nvrtcVersion", null);
            return major.get(JAVA_INT, 0) + "." + minor.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /**
     * Compiles {@code source} for the device's architecture to a cubin, or returns the cached one.
     * {@code headers} maps include names to their text. A compile error throws CudaException with
     * the compiler's log in its message.
     */
    public static byte[] compile(String name, String source, Map<String, String> headers, List<String> options, CudaDevice device) {
        return compile(name, source, headers, null, null, options, device);
    }

    /**
     * As {@link #compile(String, String, Map, List, CudaDevice)}, with {@code includeDir} (may be
     * null) on the include path. The disk cache is keyed by {@code includeHash}, a hash of the
     * content of every header under {@code includeDir} that the caller vouches for, instead of the
     * directory's path: the same headers unpacked into another directory (another process) hit the
     * cache, and changed headers miss it. {@code options} must not hold include paths of their own.
     */
    public static byte[] compile(String name, String source, Map<String, String> headers, Path includeDir,
                                 String includeHash, List<String> options, CudaDevice device) {
        require();
        if (includeDir != null && includeHash == null) {
            throw new IllegalArgumentException("includeHash: the include directory " + includeDir + " needs the hash of its headers");
        }
        if (options.stream().anyMatch(Nvrtc::isIncludePath)) {
            throw new IllegalArgumentException("options: pass the include path as includeDir (with includeHash): " + options);
        }
        List<String> all = new ArrayList<>();
        if (includeDir != null) all.add("-I" + includeDir);
        all.addAll(options);
        all.add("--gpu-architecture=sm_" + device.computeMajor() + device.computeMinor());
        all.add("--std=c++17");
        String key = cacheKey(source, headers, includeHash, all, version());
        Path cached = cacheDir().resolve(key + ".cubin");
        byte[] image = CubinCacheFile.read(cached);
        if (image != null) return image;
        image = compileNow(name, source, headers, all);
        CubinCacheFile.write(cached, image);
        return image;
    }

    private static byte[] compileNow(String name, String source, Map<String, String> headers, List<String> options) {
        try (Arena arena = Arena.ofConfined()) {
            List<Map.Entry<String, String>> hs = new ArrayList<>(headers.entrySet());
            MemorySegment contents = arena.allocate(ADDRESS, Math.max(1, hs.size()));
            MemorySegment names = arena.allocate(ADDRESS, Math.max(1, hs.size()));
            for (int i = 0; i < hs.size(); i++) {
                names.setAtIndex(ADDRESS, i, arena.allocateFrom(hs.get(i).getKey()));
                contents.setAtIndex(ADDRESS, i, arena.allocateFrom(hs.get(i).getValue()));
            }
            MemorySegment progOut = arena.allocate(ADDRESS);
            check((int) Api.create.invokeExact(progOut, arena.allocateFrom(source), arena.allocateFrom(name + ".cu"),
                    hs.size(), contents, names), "nvrtcCreateProgram", null);
            long prog = progOut.get(ADDRESS, 0).address();
            try {
                MemorySegment opts = arena.allocate(ADDRESS, Math.max(1, options.size()));
                for (int i = 0; i < options.size(); i++) opts.setAtIndex(ADDRESS, i, arena.allocateFrom(options.get(i)));
                int r = (int) Api.compile.invokeExact(prog, options.size(), opts);
                check(r, "nvrtcCompileProgram(" + name + ")", r != 0 ? log(arena, prog) : null);
                MemorySegment size = arena.allocate(JAVA_LONG);
                check((int) Api.cubinSize.invokeExact(prog, size), "nvrtcGetCUBINSize", null);
                MemorySegment image = arena.allocate(size.get(JAVA_LONG, 0));
                check((int) Api.cubin.invokeExact(prog, image), "nvrtcGetCUBIN", null);
                return image.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
            } finally {
                int ignored = (int) Api.destroy.invokeExact(progOut);
            }
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    private static String log(Arena arena, long prog) throws Throwable {
        MemorySegment size = arena.allocate(JAVA_LONG);
        if ((int) Api.logSize.invokeExact(prog, size) != 0) return "(no log)";
        MemorySegment text = arena.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
        if ((int) Api.log.invokeExact(prog, text) != 0) return "(no log)";
        return text.getString(0).strip();
    }

    private static void check(int result, String call, String log) throws Throwable {
        if (result == 0) return;
        String name = "NVRTC_ERROR_" + result;
        MemorySegment s = (MemorySegment) Api.errorString.invokeExact(result);
        if (!s.equals(MemorySegment.NULL)) name = s.reinterpret(256).getString(0);
        throw new CudaException(call, result, name, log == null ? "" : log);
    }

    private static void require() {
        if (!isAvailable()) throw new IllegalStateException(Api.LOAD_ERROR);
    }

    private static Path cacheDir() {
        String dir = System.getenv("PRIMER_CACHE");
        return dir != null ? Path.of(dir, "nvrtc") : Path.of(System.getProperty("user.home"), ".cache", "primer", "nvrtc");
    }

    /** Whether an NVRTC option names an include directory ({@code -I<dir>}, {@code --include-path=<dir>}). */
    static boolean isIncludePath(String option) {
        return option.startsWith("-I") || option.startsWith("--include-path");
    }

    /**
     * The disk cache's file name for a compile: a hash of the source, the in-memory headers, the
     * include directory's content hash ({@code includeHash}, may be null when there is none), every
     * option except include paths (so the target architecture too) and the NVRTC version. Include
     * paths are left out because the directory's name changes per process while its content, which
     * is what matters, is in {@code includeHash}; an include path without that hash is refused.
     */
    static String cacheKey(String source, Map<String, String> headers, String includeHash, List<String> options,
                           String nvrtcVersion) {
        if (includeHash == null && options.stream().anyMatch(Nvrtc::isIncludePath)) {
            throw new IllegalArgumentException("an include path needs the hash of its headers in the cache key");
        }
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update("primer-nvrtc-3\0".getBytes(StandardCharsets.UTF_8));  // key scheme (3: entries end in their hash)
            sha.update(source.getBytes(StandardCharsets.UTF_8));
            sha.update((byte) 0);
            headers.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
                sha.update(e.getKey().getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
                sha.update(e.getValue().getBytes(StandardCharsets.UTF_8));
                sha.update((byte) 0);
            });
            sha.update(("include-hash=" + (includeHash == null ? "" : includeHash) + "\0").getBytes(StandardCharsets.UTF_8));
            for (String o : options) {
                if (!isIncludePath(o)) sha.update((o + "\0").getBytes(StandardCharsets.UTF_8));
            }
            sha.update(("nvrtc=" + nvrtcVersion).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(sha.digest(), 0, 16);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
