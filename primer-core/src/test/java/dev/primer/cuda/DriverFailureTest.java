package dev.primer.cuda;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a failed driver call says (no GPU needed: the error's text falls back to its number without a driver). */
class DriverFailureTest {
    /**
     * A kernel's fault is returned by whichever call waits next, often not the launch: the message names the
     * kernel last launched, and the exception still names the call that returned it.
     */
    @Test
    void aKernelFaultNamesTheKernelLastLaunched() {
        String before = Driver.lastKernel;
        try {
            Driver.lastKernel = "segscan_offsets_sum_f32";
            for (int fault : new int[] {700, 716, 719}) {  // ILLEGAL_ADDRESS, MISALIGNED_ADDRESS, LAUNCH_FAILED
                CudaException e = Driver.failure(fault, "cuStreamSynchronize");
                assertEquals("cuStreamSynchronize", e.call());
                assertEquals(fault, e.code());
                assertTrue(e.getMessage().startsWith("cuStreamSynchronize failed: "), e.getMessage());
                assertTrue(e.getMessage().contains("segscan_offsets_sum_f32"), e.getMessage());
            }
            for (int other : new int[] {2, 1, 699, 720}) {  // out of memory, invalid value, ...: not a kernel's
                assertFalse(Driver.failure(other, "cuMemAlloc_v2").getMessage().contains("segscan_offsets_sum_f32"));
            }
        } finally {
            Driver.lastKernel = before;
        }
    }
}
