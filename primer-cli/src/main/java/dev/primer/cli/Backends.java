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

    /**
     * For the commands that run on the GPU only (ladder, bench, selftest): exit 2 for --backend cpu,
     * which they would otherwise ignore, and exit 3 with the reason when no GPU is usable. {@code hint}
     * follows "drop --backend cpu" in the message.
     */
    public static void requireGpuOnly(BackendKind asked, String what, String hint) {
        if (asked == BackendKind.CPU) throw CliException.usage(what + " runs on the GPU only (drop --backend cpu" + hint + ")");
        requireGpu(what);
    }

    /** "gpu" / "cpu", as the JSON output spells backends. */
    public static String name(BackendKind kind) { return kind.name().toLowerCase(java.util.Locale.ROOT); }
}
