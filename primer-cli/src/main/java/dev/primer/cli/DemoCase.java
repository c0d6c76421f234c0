package dev.primer.cli;

import dev.primer.DType;
import dev.primer.Op;
import dev.primer.Primer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * One row of the demo: a primitive on one input, how to run it on a backend, its plain-Java
 * reference, and the tolerance of the comparison (0: exact).
 *
 * @param run returns a Long, Float or Double scalar, or a DeviceArray
 * @param ownsResult whether the DeviceArray {@code run} returns was made by it (and is freed after use)
 */
record DemoCase(String primitive, String dtype, long n, long bytes, double tolerance, boolean ownsResult,
                BiFunction<Primer, DemoData.OnBackend, Object> run, Supplier<Object> reference) {

    static List<DemoCase> all(DemoData d) {
        List<DemoCase> cases = new ArrayList<>();
        long n = d.n;
        double tol = DemoCommand.FLOAT_TOLERANCE;
        cases.add(scalar("sum", DType.INT, n, 0, (p, b) -> p.sum(b.ints), () -> DemoReference.sum(DType.INT, d.ints, n)));
        cases.add(scalar("sum", DType.FLOAT, n, tol, (p, b) -> p.sum(b.floats), () -> DemoReference.sum(DType.FLOAT, d.floats, n)));
        cases.add(scalar("sum", DType.DOUBLE, n, tol, (p, b) -> p.sum(b.doubles), () -> DemoReference.sum(DType.DOUBLE, d.doubles, n)));
        for (Op op : new Op[] {Op.MIN, Op.MAX}) {
            boolean max = op == Op.MAX;
            String name = max ? "max" : "min";
            cases.add(scalar(name, DType.INT, n, 0, (p, b) -> p.reduce(b.ints, op), () -> DemoReference.extreme(DType.INT, d.ints, n, max)));
            cases.add(scalar(name, DType.FLOAT, n, 0, (p, b) -> p.reduce(b.floats, op), () -> DemoReference.extreme(DType.FLOAT, d.floats, n, max)));
            cases.add(scalar(name, DType.DOUBLE, n, 0, (p, b) -> p.reduce(b.doubles, op), () -> DemoReference.extreme(DType.DOUBLE, d.doubles, n, max)));
        }
        cases.add(scalar("argmax", DType.INT, n, 0, (p, b) -> p.argMax(b.ints), () -> DemoReference.argExtreme(DType.INT, d.ints, n, true)));
        cases.add(scalar("argmax", DType.FLOAT, n, 0, (p, b) -> p.argMax(b.floats), () -> DemoReference.argExtreme(DType.FLOAT, d.floats, n, true)));
        cases.add(scalar("argmax", DType.DOUBLE, n, 0, (p, b) -> p.argMax(b.doubles), () -> DemoReference.argExtreme(DType.DOUBLE, d.doubles, n, true)));
        cases.add(scalar("argmin", DType.FLOAT, n, 0, (p, b) -> p.argMin(b.floats), () -> DemoReference.argExtreme(DType.FLOAT, d.floats, n, false)));
        cases.add(scalar("xor", DType.INT, n, 0, (p, b) -> p.reduce(b.ints, Op.XOR), () -> DemoReference.xor(d.ints, n)));

        long rows = d.rows, cols = d.cols;
        cases.add(new DemoCase("reduceRows sum (" + Format.count(rows) + " × " + cols + ")", "float32", rows * cols,
                rows * cols * 4 + rows * 4, tol, true,
                (p, b) -> p.reduceRows(b.floats.slice(0, rows * cols), rows, cols, Op.SUM),
                () -> DemoReference.rowSums(d.floats, rows, cols)));
        long segs = d.segments;
        cases.add(new DemoCase("reduceSegments sum (" + Format.count(segs) + " segs)", "int32→int64", n,
                n * 4 + (segs + 1) * 8 + segs * 8, 0, true,
                (p, b) -> p.reduceSegments(b.ints, b.offsets, Op.SUM),
                () -> DemoReference.segmentSums(d.ints, d.offsets, segs)));
        cases.add(new DemoCase("inclusiveScan sum", "int32→int64", n, n * 12, 0, false,
                (p, b) -> { p.inclusiveScan(b.ints, b.scanLong, Op.SUM); return b.scanLong; },
                () -> DemoReference.inclusiveSumInts(d.ints, n)));
        cases.add(new DemoCase("inclusiveScan sum", "float64", n, n * 16, tol, false,
                (p, b) -> { p.inclusiveScan(b.doubles, b.scanDouble, Op.SUM); return b.scanDouble; },
                () -> DemoReference.inclusiveSumDoubles(d.doubles, n)));
        cases.add(new DemoCase("exclusiveScan max", "int32", n, n * 8, 0, false,
                (p, b) -> { p.exclusiveScan(b.ints, b.scanInt, Op.MAX, Integer.MIN_VALUE); return b.scanInt; },
                () -> DemoReference.exclusiveMaxInts(d.ints, n)));
        cases.add(new DemoCase("argExtremeScan max (running argmax)", "float32→int64", n, n * 12, 0, false,
                (p, b) -> { p.argExtremeScan(b.floats, b.scanLong, true); return b.scanLong; },
                () -> DemoReference.runningArgMaxFloats(d.floats, n)));
        cases.add(new DemoCase("segmentedInclusiveScan max", "int32", n, n * 8 + (segs + 1) * 8, 0, false,
                (p, b) -> { p.segmentedInclusiveScan(b.ints, b.offsets, b.scanInt, Op.MAX); return b.scanInt; },
                () -> DemoReference.segmentedInclusiveMaxInts(d.ints, d.offsets, segs, n)));
        return cases;
    }

    private static DemoCase scalar(String name, DType type, long n, double tolerance,
                                   BiFunction<Primer, DemoData.OnBackend, Object> run, Supplier<Object> reference) {
        return new DemoCase(name, type.toString(), n, n * type.byteSize(), tolerance, false, run, reference);
    }
}
