package dev.primer.gpu;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** NVRTC sees every header the kernels include: the list matches the source tree and the jar. */
class CudaSourcesTest {
    @Test
    void everyHeaderIsListedAndPacked() throws IOException {
        Path src = Path.of("src/main/cuda");
        Assumptions.assumeTrue(Files.isDirectory(src), "the kernel source tree is not here (a bundled test run)");
        List<String> onDisk;
        try (Stream<Path> files = Files.walk(src)) {
            onDisk = files.filter(p -> p.toString().endsWith(".cuh"))
                    .map(p -> src.relativize(p).toString().replace('\\', '/'))
                    .filter(p -> !p.startsWith("ladder/"))
                    .sorted().toList();
        }
        assertEquals(onDisk, CudaSources.HEADERS.stream().sorted().toList());
        for (String h : CudaSources.HEADERS) {
            assertNotNull(getClass().getResource("/dev/primer/cuda-src/" + h), h + " is not packed");
        }
    }
}
