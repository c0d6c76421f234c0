package dev.primer.cli.bench;

import dev.primer.cuda.CudaContext;
import dev.primer.cuda.CudaEvent;

import java.util.function.IntConsumer;

/**
 * Times a launch sequence with CUDA events on Primer's stream: warm-up runs first, then each timed
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
        for (int i = 0; i < warmup; i++) sequence.accept(i);
        ctx.synchronize();
        double[] ms = new double[reps];
        for (int r = 0; r < reps; r++) {
            start.record();
            sequence.accept(warmup + r);
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
