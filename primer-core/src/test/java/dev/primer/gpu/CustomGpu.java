package dev.primer.gpu;

import dev.primer.ArgumentMessages;
import dev.primer.Backends;
import dev.primer.cuda.Cuda;
import dev.primer.cuda.CudaContext;
import dev.primer.cuda.Nvrtc;
import org.junit.jupiter.api.Assumptions;

import static org.junit.jupiter.api.Assertions.assertThrows;

/** What the GPU tests of user-defined operators share: a context with NVRTC, and the argument-error check. */
final class CustomGpu {
    private CustomGpu() {}

    /** The GPU's context; the test is skipped (with the reason) without a GPU or without NVRTC. */
    static CudaContext context() {
        Backends.assumeGpu();
        Assumptions.assumeTrue(Nvrtc.isAvailable(), () -> "no NVRTC: " + Nvrtc.unavailableReason());
        return Cuda.context();
    }

    /** {@code call} throws IllegalArgumentException with a message starting with {@code start} (the argument's name). */
    static void expect(String start, Runnable call) {
        ArgumentMessages.assertStartsWith(start, assertThrows(IllegalArgumentException.class, call::run));
    }
}
