package dev.primer.cpu;

import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinTask;
import java.util.concurrent.RecursiveAction;
import java.util.concurrent.RecursiveTask;
import java.util.function.BinaryOperator;
import java.util.function.DoubleBinaryOperator;
import java.util.function.LongUnaryOperator;

/**
 * Fork/join over fixed chunks. Where work is split depends only on sizes, never on the number of
 * threads, so floating-point results are the same with one thread or many.
 *
 * <p>Tasks run in the pool of the calling thread when it is a fork/join worker (so a caller can pick
 * the parallelism by running inside its own {@link ForkJoinPool}), otherwise in the common pool with
 * the calling thread taking part.
 */
final class Parallel {
    private Parallel() {}

    /** Elements per leaf: the unit of parallel work and of the fixed summation order. */
    static final int CHUNK = 1 << 16;

    /** Number of chunks covering {@code n} elements. */
    static long chunks(long n) {
        return (n + (CHUNK - 1)) >>> 16;
    }

    /** Computes a value for the elements {@code [from, to)}. */
    @FunctionalInterface
    interface RangeFunction<R> {
        R apply(long from, long to);
    }

    /** Does something for the indices {@code [from, to)}. */
    @FunctionalInterface
    interface RangeAction {
        void run(long from, long to);
    }

    /**
     * Reduces {@code [from, to)} (non-empty) chunk by chunk, chunks aligned at {@code from}, combining
     * the chunk results over a fixed balanced tree: {@code tree(lo, hi) = combine(tree(lo, mid),
     * tree(mid, hi))} with {@code mid = (lo + hi) >>> 1}. Chunk results combine left to right, so
     * {@code combine} may rely on its left argument covering the lower indices.
     */
    static <R> R reduceChunks(long from, long to, RangeFunction<R> leaf, BinaryOperator<R> combine) {
        long chunks = chunks(to - from);
        if (chunks <= 1) {
            return leaf.apply(from, to);
        }
        return invoke(new TreeTask<>(from, to, 0, chunks, leaf, combine));
    }

    /** A chunk's double result. */
    @FunctionalInterface
    interface DoubleRangeFunction {
        double apply(long from, long to);
    }

    /**
     * {@link #reduceChunks} for double results, bit for bit the same tree, without a task per node:
     * the threads claim chunks in index order from a shared counter (so each reads memory in long
     * runs and a late-starting thread only takes fewer chunks), store each chunk's result, and the
     * caller combines them over the balanced tree afterwards.
     */
    static double reduceChunksToDouble(long from, long to, DoubleRangeFunction leaf, DoubleBinaryOperator combine) {
        long count = chunks(to - from);
        if (count <= 1) return leaf.apply(from, to);
        if (count > Integer.MAX_VALUE - 8) {
            return reduceChunks(from, to, leaf::apply, combine::applyAsDouble);
        }
        double[] results = new double[(int) count];
        java.util.concurrent.atomic.AtomicLong next = new java.util.concurrent.atomic.AtomicLong();
        // Runs of several chunks per claim keep each thread's memory stream long (DRAM pages, prefetch).
        long run = Math.clamp(count / (8L * threads()), 1, 8);
        Runnable work = () -> {
            for (long first; (first = next.getAndAdd(run)) < count; ) {
                for (long c = first, last = Math.min(count, first + run); c < last; c++) {
                    long start = from + c * CHUNK;
                    results[(int) c] = leaf.apply(start, Math.min(to, start + CHUNK));
                }
            }
        };
        runWithHelpers((int) Math.min(count - 1, threads() - 1), work);
        return tree(results, 0, (int) count, combine);
    }

    /**
     * Runs {@code work} on the calling thread and on {@code helpers} forked tasks at once (work that
     * claims its pieces from a shared counter), waits for all of them and rethrows the first failure.
     */
    static void runWithHelpers(int helpers, Runnable work) {
        ForkJoinTask<?>[] tasks = new ForkJoinTask<?>[helpers];
        for (int t = 0; t < helpers; t++) tasks[t] = fork(work);
        RuntimeException failure = null;
        try {
            work.run();
        } catch (RuntimeException e) {
            failure = e;
        }
        for (ForkJoinTask<?> task : tasks) {
            try {
                task.join();
            } catch (RuntimeException e) {
                if (failure == null) failure = e;
            }
        }
        if (failure != null) throw failure;
    }

    private static double tree(double[] r, int lo, int hi, DoubleBinaryOperator combine) {
        if (hi - lo == 1) return r[lo];
        int mid = (lo + hi) >>> 1;
        return combine.applyAsDouble(tree(r, lo, mid, combine), tree(r, mid, hi, combine));
    }

    /** Runs {@code action} on every chunk of {@code [0, n)} in parallel. */
    static void forEachChunk(long n, RangeAction action) {
        long chunks = chunks(n);
        forRange(chunks, 1, (lo, hi) -> {
            for (long c = lo; c < hi; c++) {
                action.run(c * CHUNK, Math.min(n, (c + 1) * CHUNK));
            }
        });
    }

    /** Runs {@code action} over {@code [0, count)} in parallel, in pieces of at most {@code grain}. */
    static void forRange(long count, long grain, RangeAction action) {
        if (count <= grain) {
            if (count > 0) action.run(0, count);
            return;
        }
        invoke(new RangeTask(0, count, Math.max(1, grain), action));
    }

    /**
     * Runs {@code action} over the items {@code [0, count)} in parallel, where item {@code k} covers
     * the elements {@code [start(k), start(k + 1))} of a non-decreasing {@code start}: pieces hold at
     * most about one chunk of elements, or a single item.
     */
    static void forWeightedRange(long count, LongUnaryOperator start, RangeAction action) {
        if (count == 0) return;
        if (count == 1 || start.applyAsLong(count) - start.applyAsLong(0) <= CHUNK) {
            action.run(0, count);
            return;
        }
        invoke(new WeightedTask(0, count, start, action));
    }

    /** Threads that work on a parallel call: the pool's parallelism, plus the caller outside a pool. */
    static int threads() {
        ForkJoinPool pool = ForkJoinTask.getPool();
        return pool != null ? pool.getParallelism() : ForkJoinPool.commonPool().getParallelism() + 1;
    }

    /** Starts {@code action} in the caller's pool (a worker's own, otherwise the common pool). */
    static ForkJoinTask<?> fork(Runnable action) {
        ForkJoinTask<?> task = ForkJoinTask.adapt(action);
        if (ForkJoinTask.inForkJoinPool()) return task.fork();
        return ForkJoinPool.commonPool().submit(task);
    }

    private static <T> T invoke(ForkJoinTask<T> task) {
        // invoke() runs the root in the calling thread: a worker forks into its own pool, any other
        // thread into the common pool, whose parallelism is one less than the cores: the caller is
        // the missing core.
        return task.invoke();
    }

    private static final class TreeTask<R> extends RecursiveTask<R> {
        private final long from, to, lo, hi;
        private final RangeFunction<R> leaf;
        private final BinaryOperator<R> combine;

        TreeTask(long from, long to, long lo, long hi, RangeFunction<R> leaf, BinaryOperator<R> combine) {
            this.from = from;
            this.to = to;
            this.lo = lo;
            this.hi = hi;
            this.leaf = leaf;
            this.combine = combine;
        }

        @Override protected R compute() {
            if (hi - lo == 1) {
                long start = from + lo * CHUNK;
                return leaf.apply(start, Math.min(to, start + CHUNK));
            }
            long mid = (lo + hi) >>> 1;
            TreeTask<R> left = new TreeTask<>(from, to, lo, mid, leaf, combine);
            left.fork();
            R right = new TreeTask<>(from, to, mid, hi, leaf, combine).compute();
            return combine.apply(left.join(), right);
        }
    }

    private static final class RangeTask extends RecursiveAction {
        private final long lo, hi, grain;
        private final RangeAction action;

        RangeTask(long lo, long hi, long grain, RangeAction action) {
            this.lo = lo;
            this.hi = hi;
            this.grain = grain;
            this.action = action;
        }

        @Override protected void compute() {
            if (hi - lo <= grain) {
                action.run(lo, hi);
                return;
            }
            long mid = (lo + hi) >>> 1;
            RangeTask left = new RangeTask(lo, mid, grain, action);
            left.fork();
            new RangeTask(mid, hi, grain, action).compute();
            left.join();
        }
    }

    private static final class WeightedTask extends RecursiveAction {
        private final long lo, hi;
        private final LongUnaryOperator start;
        private final RangeAction action;

        WeightedTask(long lo, long hi, LongUnaryOperator start, RangeAction action) {
            this.lo = lo;
            this.hi = hi;
            this.start = start;
            this.action = action;
        }

        @Override protected void compute() {
            long first = start.applyAsLong(lo), last = start.applyAsLong(hi);
            if (hi - lo == 1 || last - first <= CHUNK) {
                action.run(lo, hi);
                return;
            }
            // Split where the elements halve, so one huge item does not drag its neighbours along.
            long half = first + (last - first) / 2, a = lo + 1, b = hi - 1;
            while (a < b) {
                long m = (a + b) >>> 1;
                if (start.applyAsLong(m) < half) a = m + 1; else b = m;
            }
            WeightedTask left = new WeightedTask(lo, a, start, action);
            left.fork();
            new WeightedTask(a, hi, start, action).compute();
            left.join();
        }
    }
}
