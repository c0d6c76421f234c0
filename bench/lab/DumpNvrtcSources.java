import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes the NVRTC sources Primer generates for the test suite's user-defined operators (reduce,
 * rows and segments, scan, segmented scan by flags and by offsets) into a directory, without the
 * prelude, for nvrtc_memcpy_probe.py to compile under each candidate prelude. Reads package-private
 * methods by reflection; run from the repository root after a build:
 *   java -cp primer-core/target/classes:primer-core/target/test-classes bench/lab/DumpNvrtcSources.java .lab/rtc
 * A lab tool, not built by Maven.
 */
public class DumpNvrtcSources {
    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        Class<?> ops = Class.forName("dev.primer.CustomScanOps");
        Class<?> op = Class.forName("dev.primer.CustomOp");
        Field preludeField = Class.forName("dev.primer.gpu.GpuCustomReduce").getDeclaredField("RTC_PRELUDE");
        preludeField.setAccessible(true);
        String prelude = (String) preludeField.get(null);
        for (String name : new String[] {"AFFINE16", "AFFINE32", "FFILL_EXACT", "ABS_MAX", "DOUBLE_SUM"}) {
            Object o = ops.getField(name).get(null);
            for (String kind : new String[] {"GpuCustomReduce", "GpuCustomSegmentedReduce", "GpuCustomScan"}) {
                Method m = Class.forName("dev.primer.gpu." + kind).getDeclaredMethod("source", op);
                m.setAccessible(true);
                write(dir.resolve(name + "-" + kind + ".cu"), (String) m.invoke(null, o), prelude);
            }
            Method seg = Class.forName("dev.primer.gpu.GpuCustomScan").getDeclaredMethod("segmentedSource", op, boolean.class);
            seg.setAccessible(true);
            write(dir.resolve(name + "-seg-flags.cu"), (String) seg.invoke(null, o, false), prelude);
            write(dir.resolve(name + "-seg-offsets.cu"), (String) seg.invoke(null, o, true), prelude);
        }
    }

    private static void write(Path file, String source, String prelude) throws Exception {
        if (!source.startsWith(prelude)) throw new IllegalStateException(file + ": the source does not start with the prelude");
        Files.writeString(file, source.substring(prelude.length()));
    }
}
