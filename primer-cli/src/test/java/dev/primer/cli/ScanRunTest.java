package dev.primer.cli;

import dev.primer.DType;
import dev.primer.io.Npy;
import dev.primer.io.NpyArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code primer run inclusive-scan / exclusive-scan} on the CPU backend. */
class ScanRunTest {
    @TempDir Path dir;

    @Test void inclusiveSumOfInt32WritesInt64() throws IOException {
        Path in = dir.resolve("in.npy"), out = dir.resolve("out.npy");
        Npy.write(in, new int[] {Integer.MAX_VALUE, 1, 2});
        Cli.Result r = Cli.run("run", "inclusive-scan", in.toString(), "-o", out.toString(), "--backend", "cpu");
        assertEquals(0, r.exitCode(), r::toString);
        NpyArray a = Npy.read(out);
        assertEquals(DType.LONG, a.dtype());
        assertArrayEquals(new long[] {Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Integer.MAX_VALUE + 3L},
                a.data().toArray(ValueLayout.JAVA_LONG));
    }

    @Test void segmentedInclusiveSumOfInt32WritesInt64() throws IOException {
        // the default operator (sum) on int32 widens, segmented as plain: these segments overflow int32
        Path in = dir.resolve("in.npy"), offsets = dir.resolve("off.npy"), out = dir.resolve("out.npy");
        Npy.write(in, new int[] {4, Integer.MAX_VALUE, 7, 2, Integer.MAX_VALUE, 3, -5});
        Npy.write(offsets, new long[] {1, 3, 3, 6});
        Cli.Result r = Cli.run("run", "inclusive-scan", in.toString(), "--offsets", offsets.toString(),
                "-o", out.toString(), "--backend", "cpu");
        assertEquals(0, r.exitCode(), r::toString);
        NpyArray a = Npy.read(out);
        assertEquals(DType.LONG, a.dtype());
        // segments [1,3), [3,3), [3,6); elements 0 and 6 lie outside them and keep the input's values
        long max = Integer.MAX_VALUE;
        assertArrayEquals(new long[] {4, max, max + 7, 2, max + 2, max + 5, -5}, a.data().toArray(ValueLayout.JAVA_LONG));
    }

    @Test void segmentedExclusiveScanStartsEachSegmentAtInit() throws IOException {
        Path in = dir.resolve("in.npy"), offsets = dir.resolve("off.npy");
        Npy.write(in, new double[] {1.5, -2, 8, 0.25, 3});
        Npy.write(offsets, new int[] {0, 2, 5});
        Map<String, Object> m = MiniJson.object(Cli.run("run", "exclusive-scan", in.toString(), "--offsets",
                offsets.toString(), "--op", "max", "--init", "1", "--json", "--backend", "cpu").out());
        assertEquals(java.util.List.of(1.0, 1.5, 1.0, 8.0, 8.0), m.get("head"));
        assertEquals(2L, ((Number) m.get("segments")).longValue());
    }

    @Test void exclusiveMaxWithInit() throws IOException {
        Path in = dir.resolve("in.npy");
        Npy.write(in, new double[] {1, 5, 2, 7});
        Map<String, Object> m = MiniJson.object(Cli.run("run", "exclusive-scan", in.toString(), "--op", "max",
                "--init", "3", "--json", "--backend", "cpu").out());
        assertEquals(java.util.List.of(3.0, 3.0, 5.0, 5.0), m.get("head"));
        assertEquals("max", m.get("scanOp"));
    }
}
