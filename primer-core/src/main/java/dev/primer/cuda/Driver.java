package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Downcall handles into the CUDA driver API ({@code libcuda.so.1}), the {@code _v2} symbols where
 * they exist. Each wrapper checks the CUresult and throws {@link CudaException} naming the call.
 * Handles are resolved once; when the library is missing, {@link #LOAD_ERROR} says why and every
 * handle is null (callers go through {@link Cuda#isAvailable()} first).
 */
final class Driver {
    private Driver() {}

    static final String LOAD_ERROR;
    private static final NativeLibrary LIB;

    // Argument shapes, named once.
    private static final FunctionDescriptor I_P = FunctionDescriptor.of(JAVA_INT, ADDRESS);
    private static final FunctionDescriptor I_I = FunctionDescriptor.of(JAVA_INT, JAVA_INT);
    private static final FunctionDescriptor I_J = FunctionDescriptor.of(JAVA_INT, JAVA_LONG);
    private static final FunctionDescriptor I_V = FunctionDescriptor.of(JAVA_INT);

    static final MethodHandle cuInit, cuDriverGetVersion, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
            cuDeviceGetAttribute, cuDeviceTotalMem, cuDevicePrimaryCtxRetain, cuCtxSetCurrent, cuCtxSynchronize,
            cuStreamCreate, cuStreamSynchronize, cuStreamQuery, cuStreamDestroy, cuEventCreate, cuEventRecord, cuEventSynchronize,
            cuEventElapsedTime, cuEventDestroy, cuMemAlloc, cuMemFree, cuMemAllocHost, cuMemFreeHost, cuMemGetInfo,
            cuMemcpyHtoDAsync, cuMemcpyDtoHAsync, cuMemcpyDtoDAsync, cuMemsetD8Async, cuMemsetD32Async,
            cuModuleLoadData, cuModuleUnload, cuModuleGetFunction, cuLaunchKernel, cuLaunchCooperativeKernel,
            cuFuncSetAttribute, cuFuncGetAttribute, cuGraphCreate, cuGraphDestroy, cuGraphExecDestroy, cuGraphAddKernelNode,
            cuGraphKernelNodeSetAttribute, cuGraphInstantiate, cuGraphExecKernelNodeSetParams,
            cuGraphLaunch, cuOccupancyMaxActiveBlocksPerMultiprocessor, cuGetErrorName, cuGetErrorString;
    /** Since CUDA 12.4; null on older drivers (launches then go unchecked against the parameter list). */
    static final MethodHandle cuFuncGetParamInfo;

    static {
        NativeLibrary lib = null;
        String error = null;
        try {
            lib = NativeLibrary.open(List.of("libcuda.so.1", "/usr/lib/libcuda.so.1",
                    "/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/usr/lib64/libcuda.so.1", "libcuda.so"));
        } catch (UnsatisfiedLinkError e) {
            error = "CUDA driver library libcuda.so.1 not found (" + e.getMessage() + ")";
        }
        LIB = lib;
        LOAD_ERROR = error;
        cuInit = h("cuInit", I_I);
        cuDriverGetVersion = h("cuDriverGetVersion", I_P);
        cuDeviceGetCount = h("cuDeviceGetCount", I_P);
        cuDeviceGet = h("cuDeviceGet", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuDeviceGetName = h("cuDeviceGetName", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        cuDeviceGetAttribute = h("cuDeviceGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT));
        cuDeviceTotalMem = h("cuDeviceTotalMem_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuDevicePrimaryCtxRetain = h("cuDevicePrimaryCtxRetain", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuCtxSetCurrent = h("cuCtxSetCurrent", I_J);
        cuCtxSynchronize = h("cuCtxSynchronize", I_V);
        cuStreamCreate = h("cuStreamCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuStreamSynchronize = h("cuStreamSynchronize", I_J);
        cuStreamQuery = h("cuStreamQuery", I_J);
        cuStreamDestroy = h("cuStreamDestroy_v2", I_J);
        cuEventCreate = h("cuEventCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuEventRecord = h("cuEventRecord", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        cuEventSynchronize = h("cuEventSynchronize", I_J);
        cuEventElapsedTime = hEither("cuEventElapsedTime_v2", "cuEventElapsedTime",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        cuEventDestroy = h("cuEventDestroy_v2", I_J);
        cuMemAlloc = h("cuMemAlloc_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        cuMemFree = h("cuMemFree_v2", I_J);
        cuMemAllocHost = h("cuMemAllocHost_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG));
        cuMemFreeHost = h("cuMemFreeHost", I_P);
        cuMemGetInfo = h("cuMemGetInfo_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        cuMemcpyHtoDAsync = h("cuMemcpyHtoDAsync_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, ADDRESS, JAVA_LONG, JAVA_LONG));
        cuMemcpyDtoHAsync = h("cuMemcpyDtoHAsync_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        cuMemcpyDtoDAsync = h("cuMemcpyDtoDAsync_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
        cuMemsetD8Async = h("cuMemsetD8Async", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_BYTE, JAVA_LONG, JAVA_LONG));
        cuMemsetD32Async = h("cuMemsetD32Async", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_LONG, JAVA_LONG));
        cuModuleLoadData = h("cuModuleLoadData", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
        cuModuleUnload = h("cuModuleUnload", I_J);
        cuModuleGetFunction = h("cuModuleGetFunction", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS));
        cuLaunchKernel = h("cuLaunchKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS, ADDRESS));
        cuLaunchCooperativeKernel = h("cuLaunchCooperativeKernel", FunctionDescriptor.of(JAVA_INT, JAVA_LONG,
                JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG, ADDRESS));
        cuGraphCreate = h("cuGraphCreate", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        cuGraphDestroy = h("cuGraphDestroy", I_J);
        cuGraphExecDestroy = h("cuGraphExecDestroy", I_J);
        // The _v2 entry points take CUDA_KERNEL_NODE_PARAMS_v2 (KernelGraphs lays it out).
        cuGraphAddKernelNode = h("cuGraphAddKernelNode_v2", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG, ADDRESS));
        cuGraphKernelNodeSetAttribute = h("cuGraphKernelNodeSetAttribute", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, ADDRESS));
        cuGraphInstantiate = h("cuGraphInstantiateWithFlags", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG));
        cuGraphExecKernelNodeSetParams = h("cuGraphExecKernelNodeSetParams_v2", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS));
        cuGraphLaunch = h("cuGraphLaunch", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
        cuFuncSetAttribute = h("cuFuncSetAttribute", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT, JAVA_INT));
        cuFuncGetAttribute = h("cuFuncGetAttribute", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG));
        cuOccupancyMaxActiveBlocksPerMultiprocessor = h("cuOccupancyMaxActiveBlocksPerMultiprocessor",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
        cuGetErrorName = h("cuGetErrorName", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        cuGetErrorString = h("cuGetErrorString", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS));
        cuFuncGetParamInfo = LIB == null ? null
                : LIB.find("cuFuncGetParamInfo", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS, ADDRESS)).orElse(null);
    }

    private static MethodHandle h(String symbol, FunctionDescriptor descriptor) {
        return LIB == null ? null : LIB.require(symbol, descriptor);
    }

    private static MethodHandle hEither(String preferred, String fallback, FunctionDescriptor descriptor) {
        return LIB == null ? null : LIB.find(preferred, descriptor).orElseGet(() -> LIB.require(fallback, descriptor));
    }

    /** Throws CudaException for a non-zero CUresult. */
    static void check(int result, String call) {
        if (result != 0) throw failure(result, call);
    }

    static CudaException failure(int result, String call) {
        String kernel = lastKernel;
        String note = result >= FIRST_KERNEL_FAULT && result <= LAST_KERNEL_FAULT && kernel != null
                ? " (a kernel's fault surfaces at the next call that waits; the last kernel launched was " + kernel
                        + "; -Dprimer.checkLaunches=true checks after every launch)"
                : "";
        return new CudaException(call, result, text(cuGetErrorName, result, "CUDA_ERROR_" + result),
                text(cuGetErrorString, result, "unknown error") + note);
    }

    /** CUresults of a kernel's fault (CUDA_ERROR_ILLEGAL_ADDRESS .. CUDA_ERROR_LAUNCH_FAILED). */
    private static final int FIRST_KERNEL_FAULT = 700, LAST_KERNEL_FAULT = 719;
    /** The kernel last queued in this process (one context, one stream), for the message of a fault found later. */
    static volatile String lastKernel;

    private static String text(MethodHandle getter, int result, String otherwise) {
        if (getter == null) return otherwise;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            int r = (int) getter.invokeExact(result, out);
            MemorySegment p = out.get(ADDRESS, 0);
            if (r != 0 || p.equals(MemorySegment.NULL)) return otherwise;
            return p.reinterpret(Long.MAX_VALUE).getString(0);
        } catch (Throwable t) {
            return otherwise;
        }
    }

    /** Rethrows what a downcall threw; downcalls themselves throw nothing checked. */
    static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) return r;
        if (t instanceof Error e) throw e;
        return new IllegalStateException(t);
    }

    // Reads of out-parameters, kept here so callers stay one line per call.
    static int outInt(MemorySegment s) { return s.get(JAVA_INT, 0); }
    static long outLong(MemorySegment s) { return s.get(JAVA_LONG, 0); }
    static float outFloat(MemorySegment s) { return s.get(JAVA_FLOAT, 0); }
}
