package dev.primer.cli.bench;

import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaEvent;

import java.util.function.IntConsumer;

/**
 * Times a launch sequence with CUDA events on Primer's stream: warm-up runs first (see below), then each timed
 * repetition is bracketed by two events, so host overhead between repetitions is not counted and no
 * host copy sits inside the timed region. The sequence gets the repetition number so that it can
 * rotate among buffers (to keep the working set larger than L2).
 */
final class EventTimer implements AutoCloseable {
    private final CudaContext ctx;
    private final CudaEvent start;
    private final CudaEvent stop;

    EventTimer(CudaContext ctx) {
        this.ctx = ctx;
        this.start = ctx.newEvent();
        this.stop = ctx.newEvent();
    }

    Timing time(int warmup, int reps, IntConsumer sequence) {
        // At least `warmup` runs and WARMUP_NANOS of them: the GPU's clocks and caches need a few,
        // the JIT needs hundreds before the host side of a call (checks, the FFM downcall) is
        // compiled code, as in a long-running application; its time sits inside the timed
        // region whenever the GPU is idle when the start event is recorded.
        long begin = System.nanoTime();
        int runs = 0;
        while (runs < warmup || (runs < BenchSetup.WARMUP_MAX_RUNS && System.nanoTime() - begin < BenchSetup.WARMUP_NANOS)) {
            sequence.accept(runs++);
            if (runs % 64 == 0) ctx.synchronize();  // keeps the queue short: host time tracks GPU time
        }
        ctx.synchronize();
        double[] ms = new double[reps];
        for (int r = 0; r < reps; r++) {
            start.record();
            sequence.accept(runs + r);
            stop.record();
            ms[r] = stop.elapsedMillis(start);
        }
        return Timing.of(ms);
    }

    @Override
    public void close() {
        start.close();
        stop.close();
    }
}
