package dev.primer.cli.bench;

/**
 * How Primer's record compares with a baseline library's record of the same name: the speedup is
 * Primer's speed over the library's, i.e. baseline ms / Primer ms. Records of different sizes (a
 * --quick run against a full baselines file) are not compared.
 */
final class Pairing {
    private Pairing() {}

    static Baselines.Entry baseline(Baselines baselines, BenchRecord r, String library) {
        return baselines.find(r.name(), library);
    }

    static double speedup(BenchRecord r, Baselines.Entry b) {
        if (b == null || !b.ok() || !r.ok() || !(r.ms() > 0)) return Double.NaN;
        if (!sameSize(r, b)) return Double.NaN;
        return b.ms() / r.ms();
    }

    static boolean sameSize(BenchRecord r, Baselines.Entry b) {
        return b.n() < 0 || b.n() == r.n();
    }

    static double speedup(Baselines baselines, BenchRecord r, String library) {
        return speedup(r, baseline(baselines, r, library));
    }
}
