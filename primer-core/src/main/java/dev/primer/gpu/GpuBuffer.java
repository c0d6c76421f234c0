package dev.primer.gpu;

import dev.primer.Buffer;
import dev.primer.cuda.CudaContext;

/** Device memory from cuMemAlloc. */
record GpuBuffer(CudaContext context, long deviceAddress, long byteSize) implements Buffer {
    @Override public void free() { context.free(deviceAddress); }
}
