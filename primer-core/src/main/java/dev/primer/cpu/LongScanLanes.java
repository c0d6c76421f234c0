package dev.primer.cpu;

import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorShuffle;
import jdk.incubator.vector.VectorSpecies;

/**
 * The int64 vector shape of the integer scans ({@link LongBlockScan}, {@link IntToLongBlockScan}): 8
 * lanes where the CPU has them (AVX-512, with a 64-bit lane permute by register), else 4 (AVX2, where
 * those scans run a scalar loop instead). Not a template: its static finals are constants to C2 in
 * every copy of the templates that read them.
 */
final class LongScanLanes {
    private LongScanLanes() {}

    /** Whether the CPU has 8 int64 lanes: the templates' vector path. */
    static final boolean WIDE = LongVector.SPECIES_PREFERRED.length() >= 8;
    static final VectorSpecies<Long> S = WIDE ? LongVector.SPECIES_512 : LongVector.SPECIES_256;
    static final int LANES = S.length();
    static final VectorShuffle<Long> LAST = VectorShuffle.fromOp(S, i -> LANES - 1);
    /** Exclusive outputs: lane i takes lane i - 1 (lane 0 then blended with the identity at FIRST). */
    static final VectorShuffle<Long> UP1 = VectorShuffle.fromOp(S, i -> i - 1 & LANES - 1);
    static final VectorMask<Long> FIRST = VectorMask.fromLong(S, 1);
    /** Sklansky steps of width 1, 2, 4 (see {@link LaneOps#sklanskyShuffle}). */
    static final VectorShuffle<Long> FROM1 = LaneOps.sklanskyShuffle(S, 1),
            FROM2 = LaneOps.sklanskyShuffle(S, 2),
            FROM4 = LaneOps.sklanskyShuffle(S, 4);
    static final VectorMask<Long> BIT1 = LaneOps.sklanskyLanes(S, 1),
            BIT2 = LaneOps.sklanskyLanes(S, 2),
            BIT4 = LaneOps.sklanskyLanes(S, 4);
}
