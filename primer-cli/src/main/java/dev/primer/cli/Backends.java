package dev.primer.cli;

import dev.primer.BackendKind;
import dev.primer.Primer;
import dev.primer.cuda.Cuda;

/** Opening the backend a command was asked for, with exit 3 and the reason when the GPU is not usable. */
public final class Backends {
    private Backends() {}

    /** GPU or CPU: what AUTO means on this machine. */
    public static BackendKind resolve(BackendKind kind) {
        if (kind == BackendKind.AUTO) return Cuda.isAvailable() ? BackendKind.GPU : BackendKind.CPU;
        if (kind == BackendKind.GPU) requireGpu("--backend gpu");
        return kind;
    }

    /** A Primer on the resolved backend. */
    public static Primer open(BackendKind kind) {
        return Primer.open(resolve(kind));
    }

    /** Throws exit 3 with the reason the GPU is not usable ({@code what} says who needed it). */
    public static void requireGpu(String what) {
        if (!Cuda.isAvailable()) {
            throw CliException.noGpu(what + " needs a GPU, and none is usable here: " + Cuda.unavailableReason());
        }
    }

    /** "gpu" / "cpu", as the JSON output spells backends. */
    public static String name(BackendKind kind) { return kind.name().toLowerCase(java.util.Locale.ROOT); }
}
