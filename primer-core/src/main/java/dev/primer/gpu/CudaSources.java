package dev.primer.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;

/**
 * The kernel headers packed in the jar ({@code dev/primer/cuda-src/**.cuh}), unpacked once into a
 * directory that NVRTC can take as an include path, so run-time kernels include the very
 * collectives the prebuilt ones use; with a hash of their content, which keys NVRTC's disk cache
 * (the directory differs from process to process, the content does not).
 */
final class CudaSources {
    private CudaSources() {}

    /** Every header, relative to src/main/cuda (kept in step with the source tree by CudaSourcesTest). */
    static final List<String> HEADERS = List.of("ops.cuh", "thread/copy_async.cuh", "thread/packed_int8.cuh", "thread/vector16.cuh",
            "warp/warp_reduce.cuh", "warp/warp_scan.cuh", "block/block_reduce.cuh", "block/block_scan.cuh", "device/reduce_kernels.cuh",
            "device/ordered_reduce_kernels.cuh", "device/scan_kernels.cuh", "device/scan/policy.cuh",
            "device/scan/float_keys.cuh", "device/scan/integer_extremes.cuh", "device/scan/operator_traits.cuh", "device/scan/tile_status.cuh", "device/scan/lookback.cuh",
            "device/scan/segment_heads.cuh", "device/scan/offset_heads.cuh", "device/scan/tile_io.cuh", "device/scan/byte_sums.cuh",
            "device/scan/byte_extremes.cuh", "device/scan/byte_bitwise.cuh", "device/scan/segmented_sums.cuh",
            "device/segmented_reduce_kernels.cuh", "device/segmented_reduce/policy.cuh",
            "device/segmented_reduce/recipe.cuh", "device/segmented_reduce/vector_fold.cuh",
            "device/segmented_reduce/group_fold.cuh", "device/segmented_reduce/scratch.cuh",
            "device/segmented_reduce/rows.cuh", "device/segmented_reduce/segment_scratch.cuh",
            "device/segmented_reduce/check_offsets.cuh", "device/segmented_reduce/one_launch.cuh", "device/grid_barrier.cuh",
            "device/segmented_reduce/run_fold.cuh", "device/segmented_reduce/place_frame.cuh",
            "device/segmented_reduce/marked_tile.cuh",
            "device/segmented_reduce/prefix_tile.cuh",
            "device/segmented_reduce/merge_path_tile.cuh",
            "device/segmented_reduce/warp_segments.cuh", "device/segmented_reduce/segments.cuh",
            "device/ordered_segmented_reduce_kernels.cuh", "device/segmented_reduce_merge_path.cuh",
            "device/arg_scan_kernels.cuh", "device/arg_scan_tile.cuh");

    private record Unpacked(Path root, String hash) {}

    private static volatile Unpacked unpacked;

    /** The directory holding the headers (ops.cuh at its top). */
    static Path includeRoot() { return unpacked().root(); }

    /** SHA-256 (hex) of every header's name and bytes, in name order: what NVRTC reads under {@link #includeRoot}. */
    static String headersHash() { return unpacked().hash(); }

    private static Unpacked unpacked() {
        Unpacked u = unpacked;
        if (u != null) return u;
        synchronized (CudaSources.class) {
            if (unpacked == null) unpacked = unpack();
            return unpacked;
        }
    }

    private static Unpacked unpack() {
        try {
            Path dir = Files.createTempDirectory("primer-cuda-src");
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String header : HEADERS.stream().sorted().toList()) {
                byte[] bytes;
                try (InputStream in = CudaSources.class.getResourceAsStream("/dev/primer/cuda-src/" + header)) {
                    if (in == null) throw new IllegalStateException("kernel header " + header + " is not in the jar");
                    bytes = in.readAllBytes();
                }
                Path target = dir.resolve(header);
                Files.createDirectories(target.getParent());
                Files.write(target, bytes);
                target.toFile().deleteOnExit();
                sha.update((header + "\0" + bytes.length + "\0").getBytes(StandardCharsets.UTF_8));
                sha.update(bytes);
            }
            dir.toFile().deleteOnExit();
            return new Unpacked(dir, HexFormat.of().formatHex(sha.digest()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot unpack the kernel headers for NVRTC", e);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
