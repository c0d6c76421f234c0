package dev.primer.cpu;

import dev.primer.DType;
import dev.primer.Op;

import java.lang.foreign.MemorySegment;

/**
 * Scalar models of the documented floating-point orders, written from the javadoc (CpuReduce,
 * FloatChunkReduce, CpuScan, FloatBlockScan) without vectors: the kernels must
 * match them bit for bit.
 */
final class OrderModel {
    private OrderModel() {}

    static final int CHUNK = 1 << 16;

    static double apply(Op op, double a, double b) {
        return switch (op) {
            case SUM -> a + b;
            case PROD -> a * b;
            case MIN -> Math.min(a, b);
            case MAX -> Math.max(a, b);
            default -> throw new IllegalArgumentException();
        };
    }

    /** Rounds to the element type after each operation (float32 scans run in float). */
    static double apply(DType type, Op op, double a, double b) {
        double r = apply(op, a, b);
        return type == DType.FLOAT ? (float) r : r;
    }

    static double identity(Op op) {
        return switch (op) {
            case SUM -> -0.0;
            case PROD -> 1.0;
            case MIN -> Double.POSITIVE_INFINITY;
            case MAX -> Double.NEGATIVE_INFINITY;
            default -> throw new IllegalArgumentException();
        };
    }

    // ---- reduce: 16 logical lanes per chunk, fixed tree over chunks ----

    static double reduce(DType type, Op op, MemorySegment in, long from, long to) {
        long chunks = (to - from + CHUNK - 1) / CHUNK;
        double r = tree(type, op, in, from, to, 0, chunks);
        return Double.isNaN(r) ? Double.NaN : r;
    }

    private static double tree(DType type, Op op, MemorySegment in, long from, long to, long lo, long hi) {
        if (hi - lo == 1) {
            long a = from + lo * CHUNK;
            return chunk(type, op, in, a, Math.min(to, a + CHUNK));
        }
        long mid = (lo + hi) >>> 1;
        return apply(op, tree(type, op, in, from, to, lo, mid), tree(type, op, in, from, to, mid, hi));
    }

    private static double chunk(DType type, Op op, MemorySegment in, long from, long to) {
        if (op == Op.MIN || op == Op.MAX) { // exact in any order
            double r = identity(op);
            for (long i = from; i < to; i++) r = apply(op, r, TestArrays.floating(type, in, i));
            return r;
        }
        double[] lane = new double[16];
        java.util.Arrays.fill(lane, op == Op.PROD ? 1.0 : 0.0);
        long whole = (to - from) / 16 * 16;
        for (long k = 0; k < whole; k++) {
            int r = (int) (k % 16);
            lane[r] = apply(op, lane[r], TestArrays.floating(type, in, from + k));
        }
        double[] m = new double[4];
        for (int r = 0; r < 4; r++) m[r] = apply(op, apply(op, lane[r], lane[r + 4]), apply(op, lane[r + 8], lane[r + 12]));
        double result = apply(op, apply(op, m[0], m[1]), apply(op, m[2], m[3]));
        for (long i = from + whole; i < to; i++) result = apply(op, result, TestArrays.floating(type, in, i));
        return result;
    }

    // ---- scan: chunks; blocks of two vectors of B lanes, Hillis-Steele in each vector ----

    /** The scan of {@code [from, to)} (chunks aligned at from) as CpuScan defines it, as doubles. */
    static double[] scan(DType type, Op op, boolean inclusive, double init, MemorySegment in, long from, long to) {
        int lanes = type == DType.FLOAT ? 8 : 4, block = 2 * lanes;
        int n = (int) (to - from);
        double[] out = new double[n];
        double carry = init;
        for (int c0 = 0; c0 < n; c0 += CHUNK) {
            int c1 = Math.min(n, c0 + CHUNK);
            double running = identity(op);
            for (int b0 = c0; b0 < c1; b0 += block) {
                double[] p = new double[block];
                for (int j = 0; j < block; j++) {
                    p[j] = b0 + j < c1 ? TestArrays.floating(type, in, from + b0 + j) : identity(op);
                }
                for (int v = 0; v < block; v += lanes) { // Hillis-Steele within each vector
                    for (int s = 1; s < lanes; s *= 2) {
                        double[] w = p.clone();
                        for (int j = 0; j < lanes; j++) w[v + j] = apply(type, op, p[v + j], j >= s ? p[v + j - s] : identity(op));
                        p = w;
                    }
                }
                for (int j = lanes; j < block; j++) p[j] = apply(type, op, p[j], p[lanes - 1]); // second vector
                double[] t = new double[block];
                for (int j = 0; j < block; j++) t[j] = apply(type, op, running, p[j]);
                for (int j = 0; j < block && b0 + j < c1; j++) {
                    double e = inclusive ? t[j] : j == 0 ? running : t[j - 1];
                    out[b0 + j] = apply(type, op, carry, e);
                }
                running = t[block - 1];
            }
            carry = apply(type, op, carry, running);
        }
        return out;
    }
}
