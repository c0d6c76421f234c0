package dev.primer.cuda;

/**
 * A GPU's identity and the attributes that tuning policies and reports need, read once.
 * The theoretical peak bandwidth is computed as the lectures do: memory clock × 2 (double data rate)
 * × bus width in bytes.
 */
public record CudaDevice(int ordinal, String name, int computeMajor, int computeMinor, int multiprocessorCount,
                         long totalMemoryBytes, int l2CacheBytes, int memoryClockKHz, int memoryBusWidthBits,
                         int maxThreadsPerBlock, int maxThreadsPerMultiprocessor, int maxSharedBytesPerBlockOptin,
                         int clockKHz, int driverVersion) {

    /** Compute capability as {@code "9.0"}. */
    public String computeCapability() { return computeMajor + "." + computeMinor; }

    /** Bytes per second the memory interface can move at most; 0 when the driver does not report clocks. */
    public double theoreticalBandwidthBytesPerSecond() {
        return 2.0 * memoryClockKHz * 1e3 * (memoryBusWidthBits / 8.0);
    }

    /** e.g. {@code "13.0"}. */
    public String driverVersionString() { return (driverVersion / 1000) + "." + (driverVersion % 1000) / 10; }
}
