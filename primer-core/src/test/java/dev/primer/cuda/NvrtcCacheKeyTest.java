package dev.primer.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The NVRTC disk cache's key (no GPU or NVRTC needed): the include directory's path, which is a fresh
 * temporary directory in every process, stays out of it, so a later process hits the cache; what
 * decides the cubin (source, headers' content, options, architecture, NVRTC version) is in it.
 */
class NvrtcCacheKeyTest {
    private static final String SOURCE = "#include \"device/reduce_kernels.cuh\"\nextern \"C\" __global__ void k() {}\n";
    private static final String HEADERS_HASH = "a".repeat(64);
    private static final String VERSION = "13.0";

    private static List<String> options(String includeOption, String arch) {
        return List.of(includeOption, "--device-int128", "-default-device", "-lineinfo",
                "--gpu-architecture=" + arch, "--std=c++17");
    }

    private static String key(String source, String headersHash, List<String> options, String version) {
        return Nvrtc.cacheKey(source, Map.of(), headersHash, options, version);
    }

    @Test
    void theIncludeDirectoryPathDoesNotChangeTheKey() {
        String a = key(SOURCE, HEADERS_HASH, options("-I/tmp/primer-cuda-src123", "sm_90"), VERSION);
        String b = key(SOURCE, HEADERS_HASH, options("-I/tmp/primer-cuda-src98765", "sm_90"), VERSION);
        String c = key(SOURCE, HEADERS_HASH, options("--include-path=/elsewhere", "sm_90"), VERSION);
        assertEquals(a, b);
        assertEquals(a, c);
        assertEquals(a, key(SOURCE, HEADERS_HASH, options("-I/tmp/primer-cuda-src123", "sm_90"), VERSION), "deterministic");
        assertEquals(32, a.length());
    }

    @Test
    void whatDecidesTheCubinChangesTheKey() {
        String base = key(SOURCE, HEADERS_HASH, options("-I/tmp/x", "sm_90"), VERSION);
        assertNotEquals(base, key(SOURCE, "b".repeat(64), options("-I/tmp/x", "sm_90"), VERSION), "headers' content");
        assertNotEquals(base, key(SOURCE + " ", HEADERS_HASH, options("-I/tmp/x", "sm_90"), VERSION), "source");
        assertNotEquals(base, key(SOURCE, HEADERS_HASH, options("-I/tmp/x", "sm_80"), VERSION), "architecture");
        assertNotEquals(base, key(SOURCE, HEADERS_HASH, options("-I/tmp/x", "sm_90"), "12.8"), "NVRTC version");
        List<String> noLineInfo = List.of("-I/tmp/x", "--device-int128", "-default-device",
                "--gpu-architecture=sm_90", "--std=c++17");
        assertNotEquals(base, key(SOURCE, HEADERS_HASH, noLineInfo, VERSION), "other options");
        assertNotEquals(Nvrtc.cacheKey(SOURCE, Map.of(), null, List.of("--std=c++17"), VERSION),
                Nvrtc.cacheKey(SOURCE, Map.of("h.cuh", "int x;"), null, List.of("--std=c++17"), VERSION),
                "in-memory headers");
        assertNotEquals(Nvrtc.cacheKey(SOURCE, Map.of("h.cuh", "int x;"), null, List.of("--std=c++17"), VERSION),
                Nvrtc.cacheKey(SOURCE, Map.of("h.cuh", "int y;"), null, List.of("--std=c++17"), VERSION),
                "in-memory header text");
    }

    @Test
    void anIncludePathWithoutTheHashOfItsHeadersIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> key(SOURCE, null, options("-I/tmp/x", "sm_90"), VERSION));
        assertThrows(IllegalArgumentException.class,
                () -> key(SOURCE, null, options("--include-path=/tmp/x", "sm_90"), VERSION));
    }
}
