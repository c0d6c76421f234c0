package dev.primer.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The records bench/baselines.py wrote (a JSON list whose first record, named "env", describes its
 * environment; then {name, library, ms, gbps, n, ...} per library and benchmark, or {name, library,
 * error}). Primer's records pair with the baseline records of the same name.
 */
final class Baselines {
    /** One library's timing of one benchmark; {@code error} set when it did not run. */
    record Entry(String name, String library, double ms, double gbps, long n, String dtype, String outDtype,
                 String error, Map<String, Object> raw) {
        boolean ok() { return error == null && ms > 0; }
    }

    private final Map<String, Object> env;
    private final List<Entry> entries;
    private final Path source;

    private Baselines(Map<String, Object> env, List<Entry> entries, Path source) {
        this.env = env;
        this.entries = entries;
        this.source = source;
    }

    static Baselines none() { return new Baselines(Map.of(), List.of(), null); }

    @SuppressWarnings("unchecked")
    static Baselines load(Path file) throws IOException {
        Object parsed = JsonReader.parse(Files.readString(file));
        if (!(parsed instanceof List<?> list)) throw new IOException(file + ": expected a JSON list of records (bench/baselines.py --out)");
        Map<String, Object> env = new LinkedHashMap<>();
        List<Entry> entries = new ArrayList<>();
        for (Object o : list) {
            if (!(o instanceof Map<?, ?> m)) continue;
            Map<String, Object> r = (Map<String, Object>) m;
            String name = String.valueOf(r.get("name"));
            if (name.equals("env") && !r.containsKey("library")) {
                env = r;
                continue;
            }
            entries.add(new Entry(name, String.valueOf(r.get("library")), number(r.get("ms")), number(r.get("gbps")),
                    r.get("n") instanceof Number k ? k.longValue() : -1, text(r.get("dtype")), text(r.get("out_dtype")),
                    r.containsKey("error") ? String.valueOf(r.get("error")) : null, r));
        }
        return new Baselines(env, entries, file);
    }

    private static double number(Object o) { return o instanceof Number k ? k.doubleValue() : Double.NaN; }

    private static String text(Object o) { return o == null ? null : String.valueOf(o); }

    boolean present() { return source != null; }

    Path source() { return source; }

    Map<String, Object> env() { return env; }

    List<Entry> entries() { return entries; }

    /** Records of this benchmark name, in file order (cupy, torch, torch-index_add, ...). */
    List<Entry> forName(String name) {
        return entries.stream().filter(e -> e.name().equals(name)).toList();
    }

    /** The successful record of this name and library, or null. */
    Entry find(String name, String library) {
        for (Entry e : entries) if (e.name().equals(name) && e.library().equals(library) && e.ok()) return e;
        return null;
    }

    /** The libraries present, in first-seen order. */
    List<String> libraries() {
        return entries.stream().map(Entry::library).distinct().toList();
    }
}
