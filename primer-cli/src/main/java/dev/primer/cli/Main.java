package dev.primer.cli;

import dev.primer.BackendKind;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Properties;

/**
 * The {@code primer} command: global options and the subcommands. Subcommands reach the global
 * options through {@link #of(CommandSpec)}; {@code --backend} and {@code --verbose} are inherited, so
 * they may be given before or after the subcommand's name.
 */
@Command(name = "primer",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = {
                "Data-parallel primitives (reduce, scan, ...) on NVIDIA GPUs and the CPU, and the classic "
                        + "optimisation ladders as runnable, verified, benchmarked variants.",
                ""},
        synopsisSubcommandLabel = "COMMAND",
        commandListHeading = "%nCommands:%n",
        footerHeading = "%n",
        footer = {ExitCode.HELP, "",
                "Examples:",
                "  primer info                          the GPU (or CPU), its peak and measured bandwidth",
                "  primer demo                          run every primitive on random data, verified",
                "  primer run sum data.npy              reduce a .npy file",
                "  primer ladder reduce --lecture g80   the seven reduction kernels, as in the lecture",
                "  primer ladder reduce --show K5       a step's story and kernel source (no GPU needed)"},
        subcommands = {
                InfoCommand.class,
                RunCommand.class,
                DemoCommand.class,
                LadderCommand.class,
                dev.primer.cli.bench.BenchCommand.class,
                dev.primer.cli.bench.SelftestCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {

    @Spec CommandSpec spec;

    @Option(names = "--backend", scope = ScopeType.INHERIT, paramLabel = "gpu|cpu|auto",
            converter = BackendConverter.class,
            description = "Where to run: gpu, cpu, or auto (the GPU when one is usable). Default: auto.")
    BackendKind backend = BackendKind.AUTO;

    @Option(names = {"-v", "--verbose"}, scope = ScopeType.INHERIT,
            description = "More detail; stack traces on errors.")
    boolean verbose;

    /** The backend named by {@code --backend} (AUTO unless given). */
    public BackendKind backend() { return backend; }

    /** Whether {@code --verbose} was given. */
    public boolean verbose() { return verbose; }

    /** The root command's options, from any (sub)command's spec. */
    public static Main of(CommandSpec spec) {
        Object root = spec.root().userObject();
        if (root instanceof Main m) return m;
        throw new IllegalStateException("command " + spec.qualifiedName() + " is not under primer's Main");
    }

    @Override public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The configured command line: error handlers, case-insensitive enums, exit codes. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setCaseInsensitiveEnumValuesAllowed(true);
        cl.setExecutionExceptionHandler(new Errors());
        cl.setParameterExceptionHandler(Errors::usage);
        cl.setUsageHelpWidth(100);
        cl.setUsageHelpLongOptionsMaxWidth(28);
        return cl;
    }

    /** Runs the command line with {@code args}, writing to the given streams; returns the exit code. */
    public static int execute(PrintWriter out, PrintWriter err, String... args) {
        return execute(commandLine(), out, err, args);
    }

    /** As {@link #execute(PrintWriter, PrintWriter, String...)}, on a given command line (tests add commands). */
    static int execute(CommandLine cl, PrintWriter out, PrintWriter err, String... args) {
        cl.setOut(out);
        cl.setErr(err);
        try {
            return cl.execute(args);
        } catch (Throwable t) { // an Error (OutOfMemoryError, ...): picocli's handler is given Exceptions only
            return Errors.report(t, commandRun(cl));
        } finally {
            out.flush();
            err.flush();
        }
    }

    /** The (sub)command the arguments named, so its failure line reads "primer demo: ..."; the root before parsing. */
    private static CommandLine commandRun(CommandLine root) {
        CommandLine.ParseResult pr = root.getParseResult();
        if (pr == null) return root;
        while (pr.hasSubcommand()) pr = pr.subcommand();
        return pr.commandSpec().commandLine();
    }

    public static void main(String[] args) {
        System.setProperty("java.awt.headless", "true"); // --plot renders PNGs off-screen
        PrintWriter out = new PrintWriter(System.out, true);
        PrintWriter err = new PrintWriter(System.err, true);
        System.exit(execute(out, err, args));
    }

    /** Parses --backend with BackendKind's own message for a bad value. */
    static final class BackendConverter implements CommandLine.ITypeConverter<BackendKind> {
        @Override public BackendKind convert(String value) {
            try {
                return BackendKind.parse(value);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.TypeConversionException(e.getMessage());
            }
        }
    }

    /** "primer 0.1.0 (Java 25.0.3, Linux amd64)": the version from the jar's Maven metadata. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override public String[] getVersion() {
            return new String[] {"primer " + version() + " (Java " + Runtime.version() + ", "
                    + System.getProperty("os.name") + " " + System.getProperty("os.arch") + ")"};
        }
    }

    /** Primer's version, read from the Maven metadata packed in the jar ("dev" when run from classes). */
    public static String version() {
        try (InputStream in = Main.class.getResourceAsStream("/META-INF/maven/dev.primer/primer-cli/pom.properties")) {
            if (in == null) return "dev";
            Properties p = new Properties();
            p.load(in);
            return p.getProperty("version", "dev");
        } catch (java.io.IOException e) {
            return "dev";
        }
    }
}
