package dev.primer;

import dev.primer.cuda.Cuda;
import org.junit.jupiter.api.Assumptions;

import java.util.stream.Stream;

/** The backends a test runs on: the CPU always, the GPU where one is usable (else skipped, saying why). */
public final class Backends {
    private Backends() {}

    public static Stream<BackendKind> all() { return Stream.of(BackendKind.CPU, BackendKind.GPU); }

    /** Opens the backend, or skips the test with the reason the GPU is not usable. */
    public static Primer open(BackendKind kind) {
        if (kind == BackendKind.GPU) assumeGpu();
        return Primer.open(kind);
    }

    public static void assumeGpu() {
        Assumptions.assumeTrue(Cuda.isAvailable(), () -> "no GPU: " + Cuda.unavailableReason());
    }
}
