package dev.primer;

import java.lang.foreign.MemorySegment;
import java.lang.ref.Cleaner;
import java.lang.ref.Reference;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A typed, backend-resident array: {@link ByteArray}, {@link IntArray}, {@link LongArray},
 * {@link FloatArray}, {@link DoubleArray}. An array made by allocation or upload owns its memory and
 * frees it on {@link #close()}; a slice is a view that shares it, becomes unusable when its owner is
 * closed, and frees nothing. An owner that becomes unreachable without close is reported as a leak
 * (System.Logger, level WARNING) and then freed, once; a slice keeps its owner reachable, and a call
 * keeps its arrays reachable until it has issued its work.
 */
public abstract sealed class DeviceArray implements AutoCloseable
        permits ByteArray, IntArray, LongArray, FloatArray, DoubleArray {

    private static final Cleaner CLEANER = Cleaner.create();
    private static final System.Logger LOG = System.getLogger("dev.primer");

    /** Shared by an owner and its slices: the memory and whether it has been freed. */
    static final class Memory implements Runnable {
        final Backend backend;
        final Buffer buffer;
        final AtomicBoolean freed = new AtomicBoolean();
        final String origin;
        volatile boolean closedByOwner;

        Memory(Backend backend, Buffer buffer, String origin) {
            this.backend = backend;
            this.buffer = buffer;
            this.origin = origin;
        }

        /** The Cleaner's action: runs after close (nothing to do) or for a leaked array. */
        @Override public void run() {
            if (freed.compareAndSet(false, true)) {
                LOG.log(System.Logger.Level.WARNING, "leaked " + origin + " (" + buffer.byteSize()
                        + " bytes) was never closed; freeing it now");
                buffer.free();
            }
        }

        void free() {
            if (freed.compareAndSet(false, true)) buffer.free();
        }
    }

    final Memory memory;
    private final long offsetBytes;
    private final long length;
    private final Cleaner.Cleanable cleanable; // null for slices
    /** A slice's owner, held only so that it stays reachable (its Cleaner frees the memory); null for owners. */
    private final DeviceArray owner;
    private volatile boolean closed;

    /** An owner of {@code memory} when {@code sliceOf} is null, else a slice of that array's memory. */
    DeviceArray(Memory memory, long offsetBytes, long length, DeviceArray sliceOf) {
        this.memory = memory;
        this.offsetBytes = offsetBytes;
        this.length = length;
        this.owner = sliceOf == null ? null : sliceOf.owner != null ? sliceOf.owner : sliceOf;
        this.cleanable = sliceOf == null ? CLEANER.register(this, memory) : null;
    }

    public abstract DType dtype();

    /** Number of elements. */
    public final long length() { return length; }

    public final long byteSize() { return length * dtype().byteSize(); }

    public final BackendKind backend() { return memory.backend.kind(); }

    final Backend backendImpl() { return memory.backend; }

    /** Whether this array (or, for a slice, its owner) has been closed. */
    public final boolean isClosed() { return closed || memory.freed.get(); }

    /** Whether this array owns its memory (false for slices). */
    public final boolean isOwner() { return cleanable != null; }

    /** Device address of element 0 (GPU arrays): what kernels take. */
    public final long devicePointer() {
        requireOpen();
        return memory.buffer.deviceAddress() + offsetBytes;
    }

    /** The elements as a native segment (CPU arrays): what CPU routines take. */
    public final MemorySegment segment() {
        requireOpen();
        return memory.buffer.hostSegment().asSlice(offsetBytes, byteSize());
    }

    /** Throws IllegalStateException naming this array when it is closed. */
    public final void requireOpen() {
        if (isClosed()) throw new IllegalStateException(closedMessage("this "));
    }

    /** As {@link #requireOpen()}, the message starting with the argument's name ("out: this IntArray ... is closed"). */
    final void requireOpen(String argument) {
        if (isClosed()) throw new IllegalStateException(closedMessage(argument + ": this "));
    }

    private String closedMessage(String prefix) {
        return prefix + getClass().getSimpleName() + " (" + length + " elements) is closed"
                + (cleanable == null && memory.freed.get() ? " (its owner was closed)" : "");
    }

    final long offsetBytes() { return offsetBytes; }

    /** Whether the two arrays share any byte of memory (slices of one owner may). */
    final boolean overlaps(DeviceArray other) {
        return memory == other.memory && offsetBytes < other.offsetBytes + other.byteSize()
                && other.offsetBytes < offsetBytes + byteSize();
    }

    final void checkSliceBounds(long from, long to) {
        requireOpen();
        if (from < 0 || to < from || to > length) {
            throw new IndexOutOfBoundsException("slice [" + from + ", " + to + ") of an array of length " + length);
        }
    }

    /** Copies all elements from host memory holding exactly {@link #byteSize()} bytes or more. */
    public final void copyFrom(MemorySegment src) {
        Objects.requireNonNull(src, "src");
        requireOpen();
        if (src.byteSize() < byteSize()) {
            throw new IllegalArgumentException("src holds " + src.byteSize() + " bytes; this array needs " + byteSize());
        }
        try {
            memory.backend.copyIn(src, memory.buffer, offsetBytes, byteSize());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /** Copies all elements into host memory of at least {@link #byteSize()} bytes. */
    public final void copyTo(MemorySegment dst) {
        Objects.requireNonNull(dst, "dst");
        requireOpen();
        if (dst.isReadOnly()) throw new IllegalArgumentException("dst: a read-only segment");
        if (dst.byteSize() < byteSize()) {
            throw new IllegalArgumentException("dst holds " + dst.byteSize() + " bytes; this array has " + byteSize());
        }
        try {
            memory.backend.copyOut(memory.buffer, offsetBytes, dst, byteSize());
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    /**
     * Copies all elements from another array of the same type, length and backend. The two may
     * overlap (slices of one owner): the result is as if {@code src} were copied out first.
     */
    public final void copyFrom(DeviceArray src) {
        Objects.requireNonNull(src, "src");
        requireOpen();
        src.requireOpen();
        if (src.dtype() != dtype()) throw new IllegalArgumentException("src is " + src.dtype() + ", this array is " + dtype());
        if (src.length() != length) throw new IllegalArgumentException("src has " + src.length() + " elements, this array " + length);
        if (src.memory.backend != memory.backend) throw new IllegalArgumentException("src lives on another backend");
        try {
            if (!overlaps(src)) {
                memory.backend.copy(src.memory.buffer, src.offsetBytes, memory.buffer, offsetBytes, byteSize());
            } else if (src.offsetBytes != offsetBytes) {
                // A device-to-device copy between overlapping ranges is unspecified: through a buffer of its own.
                Buffer between = memory.backend.allocate(byteSize());
                try {
                    memory.backend.copy(src.memory.buffer, src.offsetBytes, between, 0, byteSize());
                    memory.backend.copy(between, 0, memory.buffer, offsetBytes, byteSize());
                } finally {
                    between.free();
                }
            }  // else the same elements: nothing to copy
        } finally {
            Reference.reachabilityFence(this);
            Reference.reachabilityFence(src);
        }
    }

    final void fillBits(long pattern) {
        requireOpen();
        try {
            memory.backend.fill(memory.buffer, offsetBytes, length, dtype().byteSize(), pattern);
        } finally {
            Reference.reachabilityFence(this);
        }
    }

    final void checkHostArray(int hostLength, String name) {
        requireOpen();
        if (hostLength != length) {
            throw new IllegalArgumentException(name + " has " + hostLength + " elements; this array has " + length);
        }
    }

    final int checkedHostLength() {
        requireOpen();
        if (length > Integer.MAX_VALUE - 8) {
            throw new IllegalStateException("an array of " + length + " elements does not fit a Java array; use copyTo(MemorySegment)");
        }
        return (int) length;
    }

    /**
     * Closes this array: an owner frees its memory (its slices become unusable); a slice only
     * becomes unusable itself. Idempotent.
     */
    @Override
    public final void close() {
        if (closed) return;
        closed = true;
        if (cleanable != null) {
            memory.free();
            cleanable.clean(); // deregisters; the action sees freed == true and does nothing
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + dtype() + ", length=" + length + ", " + memory.backend.kind()
                + (isClosed() ? ", closed" : "") + "]";
    }
}
