package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Entry to the GPU: whether one is usable here, and its context. "No GPU" (no driver library, no
 * device, a driver or device too old, a jar built without kernels) is a state with a reason, never a
 * crash; {@link #unavailableReason()} says which.
 */
public final class Cuda {
    private Cuda() {}

    /** Oldest driver API we call (CUDA 12.0); kernels carry SASS for sm_80+ and PTX for compute_90. */
    private static final int MIN_DRIVER_VERSION = 12000;
    private static final int MIN_COMPUTE_MAJOR = 8;
    private static final int CUDA_ERROR_INVALID_VALUE = 1;

    private static final class Probe {
        static final String REASON;
        static final CudaDevice DEVICE;
        static {
            String reason = null;
            CudaDevice device = null;
            try {
                device = probe();
            } catch (RuntimeException | LinkageError e) {
                reason = messageOf(e);
            }
            if (device == null && reason == null) reason = "unknown";
            if (reason == null && Cuda.class.getResource("/dev/primer/kernels/SOURCES.sha256") != null
                    && Cuda.class.getResource("/dev/primer/kernels/reduce.fatbin") == null) {
                reason = "this Primer jar was built without nvcc, so it holds no GPU kernels";
            }
            REASON = reason;
            DEVICE = reason == null ? device : null;
        }
    }

    /** Made on first use, under this class's lock; a failure to make it is kept and thrown again. */
    private static CudaContext context;
    private static RuntimeException contextFailure;

    /** Whether a usable GPU, driver and kernels are present. Cheap after the first call. */
    public static boolean isAvailable() { return Probe.REASON == null; }

    /** Why the GPU is not usable, or null when it is. */
    public static String unavailableReason() { return Probe.REASON; }

    /** The device Primer uses (device 0, or {@code PRIMER_DEVICE}); IllegalStateException when none. */
    public static CudaDevice device() {
        requireAvailable();
        return Probe.DEVICE;
    }

    /**
     * The primary context of {@link #device()}, created on first use. When that fails (another process
     * holds the device in exclusive mode, no memory left), the driver's error is thrown, then and on
     * every later call, as an IllegalStateException.
     */
    public static synchronized CudaContext context() {
        requireAvailable();
        if (context == null) {
            if (contextFailure == null) {
                try {
                    context = new CudaContext(Probe.DEVICE);
                } catch (RuntimeException e) {
                    contextFailure = e;
                }
            }
            if (contextFailure != null) {
                throw new IllegalStateException("no usable GPU: its context could not be made: " + contextFailure.getMessage(),
                        contextFailure);
            }
        }
        return context;
    }

    /** A failure's own message, or its cause's when it is a wrapper without one (ExceptionInInitializerError). */
    private static String messageOf(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getMessage() != null) return t.getMessage();
        }
        return e.toString();
    }

    private static void requireAvailable() {
        if (!isAvailable()) throw new IllegalStateException("no usable GPU: " + Probe.REASON);
    }

    private static CudaDevice probe() {
        if (Driver.LOAD_ERROR != null) throw new IllegalStateException(Driver.LOAD_ERROR);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment i = arena.allocate(JAVA_INT);
            int r = (int) Driver.cuInit.invokeExact(0);
            if (r == 100) throw new IllegalStateException("the CUDA driver found no device (cuInit: CUDA_ERROR_NO_DEVICE)");
            Driver.check(r, "cuInit");
            Driver.check((int) Driver.cuDriverGetVersion.invokeExact(i), "cuDriverGetVersion");
            int driverVersion = i.get(JAVA_INT, 0);
            if (driverVersion < MIN_DRIVER_VERSION) {
                throw new IllegalStateException("CUDA driver " + driverVersion / 1000 + "." + (driverVersion % 1000) / 10
                        + " is too old: Primer needs 12.0 or newer");
            }
            Driver.check((int) Driver.cuDeviceGetCount.invokeExact(i), "cuDeviceGetCount");
            int count = i.get(JAVA_INT, 0);
            if (count == 0) throw new IllegalStateException("the CUDA driver reports no device");
            String chosen = System.getenv().getOrDefault("PRIMER_DEVICE", "0");
            int ordinal;
            try {
                ordinal = Integer.parseInt(chosen.strip());
            } catch (NumberFormatException e) {
                throw new IllegalStateException("PRIMER_DEVICE=" + chosen + " is not a device number");
            }
            if (ordinal < 0 || ordinal >= count) {
                throw new IllegalStateException("PRIMER_DEVICE=" + ordinal + " but there are " + count + " devices");
            }
            Driver.check((int) Driver.cuDeviceGet.invokeExact(i, ordinal), "cuDeviceGet");
            int dev = i.get(JAVA_INT, 0);
            MemorySegment name = arena.allocate(256);
            Driver.check((int) Driver.cuDeviceGetName.invokeExact(name, 256, dev), "cuDeviceGetName");
            MemorySegment total = arena.allocate(JAVA_LONG);
            Driver.check((int) Driver.cuDeviceTotalMem.invokeExact(total, dev), "cuDeviceTotalMem_v2");
            CudaDevice device = new CudaDevice(dev, name.getString(0),
                    attribute(dev, 75), attribute(dev, 76), attribute(dev, 16), total.get(JAVA_LONG, 0),
                    attribute(dev, 38), attribute(dev, 36), attribute(dev, 37), attribute(dev, 1), attribute(dev, 39),
                    attribute(dev, 97), attribute(dev, 13), driverVersion);
            if (device.computeMajor() < MIN_COMPUTE_MAJOR) {
                throw new IllegalStateException(device.name() + " has compute capability " + device.computeCapability()
                        + "; Primer's kernels need 8.0 or newer");
            }
            return device;
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }

    /**
     * A device attribute, or 0 where this driver does not know it (CUDA_ERROR_INVALID_VALUE, the
     * answer to an attribute newer than the driver); any other failure throws, naming the call.
     */
    private static int attribute(int device, int attribute) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            int r = (int) Driver.cuDeviceGetAttribute.invokeExact(out, attribute, device);
            if (r == CUDA_ERROR_INVALID_VALUE) return 0;
            Driver.check(r, "cuDeviceGetAttribute(" + attribute + ")");
            return out.get(JAVA_INT, 0);
        } catch (Throwable t) {
            throw Driver.rethrow(t);
        }
    }
}
