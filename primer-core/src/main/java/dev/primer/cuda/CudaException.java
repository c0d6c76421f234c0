package dev.primer.cuda;

import dev.primer.PrimerException;

/** A CUDA driver or NVRTC call failed. Names the call and the driver's error name and string. */
public final class CudaException extends PrimerException {
    private final String call;
    private final int code;
    private final String errorName;

    public CudaException(String call, int code, String errorName, String errorString) {
        super(call + " failed: " + errorName + " (" + code + "): " + errorString);
        this.call = call;
        this.code = code;
        this.errorName = errorName;
    }

    /** The API function that failed, e.g. {@code cuMemAlloc_v2}. */
    public String call() { return call; }

    /** The numeric result code (CUresult or nvrtcResult). */
    public int code() { return code; }

    /** The symbolic error name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}. */
    public String errorName() { return errorName; }
}
