package dev.primer.cli.bench;

import dev.primer.ByteArray;
import dev.primer.DType;
import dev.primer.DeviceArray;
import dev.primer.DoubleArray;
import dev.primer.FloatArray;
import dev.primer.IntArray;
import dev.primer.LongArray;
import dev.primer.Op;
import dev.primer.Primer;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The self-test's two Primers, GPU and CPU, with the calls it makes on both: the same host data
 * uploaded to each, a reduction as the facade types it, downloads for comparison.
 */
record Twins(Primer gpu, Primer cpu) {

    /** The same host data on the GPU ([0]) and the CPU ([1]); closed by the caller's Closer. */
    DeviceArray[] upload(Closer closer, DType type, MemorySegment host, long n) {
        DeviceArray g = closer.add(gpu.upload(type, host, n));
        DeviceArray c = closer.add(cpu.upload(type, host, n));
        return new DeviceArray[] {g, c};
    }

    DeviceArray[] allocate(Closer closer, DType type, long n) {
        return new DeviceArray[] {closer.add(gpu.allocate(type, n)), closer.add(cpu.allocate(type, n))};
    }

    /** The facade's reduction: a Long for integer arrays, a Double (widened from float for float32) for floats. */
    static Number reduce(Primer p, DeviceArray a, Op op) {
        return switch (a) {
            case ByteArray x -> p.reduce(x, op);
            case IntArray x -> p.reduce(x, op);
            case LongArray x -> p.reduce(x, op);
            case FloatArray x -> (double) p.reduce(x, op);
            case DoubleArray x -> p.reduce(x, op);
        };
    }

    static MemorySegment download(DeviceArray a, Arena arena) {
        MemorySegment s = arena.allocate(Math.max(a.byteSize(), 8), 8).asSlice(0, a.byteSize());
        a.copyTo(s);
        return s;
    }
}
