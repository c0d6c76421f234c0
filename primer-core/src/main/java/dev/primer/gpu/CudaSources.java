package dev.primer.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The kernel headers packed in the jar ({@code dev/primer/cuda-src/**.cuh}), unpacked once into a
 * directory that NVRTC can take as an include path, so run-time kernels include the very
 * collectives the prebuilt ones use.
 */
final class CudaSources {
    private CudaSources() {}

    /** Every header, relative to src/main/cuda (kept in step with the source tree by CudaSourcesTest). */
    static final List<String> HEADERS = List.of("ops.cuh", "warp/warp_reduce.cuh", "warp/warp_scan.cuh",
            "block/block_reduce.cuh", "block/block_scan.cuh", "device/reduce_kernels.cuh",
            "device/scan_kernels.cuh", "device/segmented_reduce_kernels.cuh");

    private static volatile Path root;

    /** The directory holding the headers (ops.cuh at its top). */
    static Path includeRoot() {
        Path r = root;
        if (r != null) return r;
        synchronized (CudaSources.class) {
            if (root == null) root = unpack();
            return root;
        }
    }

    private static Path unpack() {
        try {
            Path dir = Files.createTempDirectory("primer-cuda-src");
            for (String header : HEADERS) {
                try (InputStream in = CudaSources.class.getResourceAsStream("/dev/primer/cuda-src/" + header)) {
                    if (in == null) throw new IllegalStateException("kernel header " + header + " is not in the jar");
                    Path target = dir.resolve(header);
                    Files.createDirectories(target.getParent());
                    Files.copy(in, target);
                }
                dir.resolve(header).toFile().deleteOnExit();
            }
            dir.toFile().deleteOnExit();
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the kernel headers for NVRTC", e);
        }
    }
}
