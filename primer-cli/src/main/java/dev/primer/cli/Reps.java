package dev.primer.cli;

/** The bound on --reps: each timed run keeps its time in an array, so a huge count fails allocating it. */
final class Reps {
    private Reps() {}

    /** A million runs is far more than a stable median needs. */
    static final int MAX = 1_000_000;

    /** Exit 2 naming --reps unless it is from 1 to {@link #MAX}. */
    static void check(int reps) {
        if (reps < 1 || reps > MAX) throw CliException.usage("--reps must be from 1 to " + MAX + ", not " + reps);
    }
}
