package dev.primer.gpu;

import dev.primer.CustomOp;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * nvcc compiles the NVRTC sources generated for user-defined operators as NVRTC will (same text,
 * same include root; ops.cuh takes its non-NVRTC branch for the fixed-width names), so CI, which
 * has nvcc but no NVRTC, still compiles them; a register spill fails the compile, as it does for the
 * prebuilt kernels. Skipped without the source tree or nvcc.
 */
final class NvccCheck {
    private static final Path INCLUDE = Path.of("src/main/cuda");

    private NvccCheck() {}

    /** Compiles {@code source.apply(op)} for each op (in parallel) and checks that each cubin holds every entry. */
    static void assertCompiles(List<CustomOp> ops, Function<CustomOp, String> source, String... entries) throws Exception {
        String nvcc = requireNvcc();
        inTempDirectory(dir -> {
            List<Process> compiles = new ArrayList<>();
            for (int k = 0; k < ops.size(); k++) {
                String file = k + "_" + ops.get(k).name();  // names may repeat (an operator and its exact() twin)
                Path cu = dir.resolve(file + ".cu");
                Files.writeString(cu, source.apply(ops.get(k)), StandardCharsets.UTF_8);
                compiles.add(new ProcessBuilder(nvcc, "-std=c++17", "-arch=sm_90", "-cubin", "-I", INCLUDE.toString(),
                        "-Werror", "all-warnings", "-Xptxas", "-warn-spills,-warn-lmem-usage",
                        "-o", dir.resolve(file + ".cubin").toString(), cu.toString())
                        .redirectErrorStream(true).redirectOutput(dir.resolve(file + ".log").toFile()).start());
            }
            for (int k = 0; k < ops.size(); k++) {
                CustomOp op = ops.get(k);
                String file = k + "_" + op.name();
                int rc = compiles.get(k).waitFor();
                if (rc != 0) fail("nvcc failed on " + op + " (" + rc + "):\n" + Files.readString(dir.resolve(file + ".log")));
                byte[] cubin = Files.readAllBytes(dir.resolve(file + ".cubin"));
                for (String entry : entries) {
                    assertTrue(new String(cubin, StandardCharsets.ISO_8859_1).contains(entry + "\0"), "the cubin of " + op + " has no " + entry);
                }
            }
            return null;
        });
    }

    /** The PTX nvcc makes of {@code source} (sm_90), as NVRTC would compile it. Skipped as above. */
    static String ptx(String source) throws Exception {
        String nvcc = requireNvcc();
        return inTempDirectory(dir -> {
            Path cu = dir.resolve("source.cu");
            Files.writeString(cu, source, StandardCharsets.UTF_8);
            Path log = dir.resolve("nvcc.log");
            int rc = new ProcessBuilder(nvcc, "-std=c++17", "-arch=sm_90", "-ptx", "-I", INCLUDE.toString(),
                    "-o", dir.resolve("source.ptx").toString(), cu.toString())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start().waitFor();
            if (rc != 0) fail("nvcc -ptx failed (" + rc + "):\n" + Files.readString(log));
            return Files.readString(dir.resolve("source.ptx"));
        });
    }

    /** nvcc's path; the test is skipped (not failed) without the source tree or nvcc. */
    private static String requireNvcc() {
        Assumptions.assumeTrue(Files.isDirectory(INCLUDE), "the kernel source tree is not here (a bundled test run)");
        String nvcc = nvcc();
        Assumptions.assumeTrue(nvcc != null, "nvcc is not on the PATH (nor in CUDA_HOME)");
        return nvcc;
    }

    private interface InDirectory<T> {
        T run(Path dir) throws Exception;
    }

    /** Runs {@code work} in a new temporary directory, deleted afterwards. */
    private static <T> T inTempDirectory(InDirectory<T> work) throws Exception {
        Path dir = Files.createTempDirectory("primer-nvcc-check");
        try {
            return work.run(dir);
        } finally {
            try (var files = Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private static String nvcc() {
        List<String> candidates = new ArrayList<>();
        String home = System.getenv("CUDA_HOME");
        if (home != null) candidates.add(home + "/bin/nvcc");
        String path = System.getenv("PATH");
        if (path != null) for (String d : path.split(File.pathSeparator)) candidates.add(d + "/nvcc");
        candidates.add("/usr/local/cuda/bin/nvcc");
        for (String c : candidates) if (Files.isExecutable(Path.of(c))) return c;
        return null;
    }
}
