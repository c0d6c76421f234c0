package dev.primer;

/** Where primitives run: the GPU, the CPU, or AUTO (the GPU when one is usable, else the CPU). */
public enum BackendKind {
    GPU, CPU, AUTO;

    public static BackendKind parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("backend must be gpu, cpu or auto, not '" + name + "'");
        }
    }
}
