package dev.primer.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A shared library opened by name or from a list of candidate paths, with typed downcall handles. */
final class NativeLibrary {
    private static final Linker LINKER = Linker.nativeLinker();
    private final SymbolLookup lookup;
    final String loadedFrom;

    private NativeLibrary(SymbolLookup lookup, String loadedFrom) {
        this.lookup = lookup;
        this.loadedFrom = loadedFrom;
    }

    /** Opens the first candidate that loads: bare names go through the dynamic loader's search. */
    static NativeLibrary open(List<String> candidates) {
        StringBuilder tried = new StringBuilder();
        for (String candidate : candidates) {
            try {
                SymbolLookup lookup = candidate.contains("/")
                        ? (Files.exists(Path.of(candidate)) ? SymbolLookup.libraryLookup(Path.of(candidate), Arena.global()) : null)
                        : SymbolLookup.libraryLookup(candidate, Arena.global());
                if (lookup != null) return new NativeLibrary(lookup, candidate);
                tried.append(candidate).append(" (absent); ");
            } catch (IllegalArgumentException | UnsatisfiedLinkError e) {
                tried.append(candidate).append(" (").append(e.getMessage()).append("); ");
            }
        }
        throw new UnsatisfiedLinkError("could not load any of " + candidates + ": " + tried);
    }

    Optional<MethodHandle> find(String symbol, FunctionDescriptor descriptor) {
        return lookup.find(symbol).map(address -> LINKER.downcallHandle(address, descriptor));
    }

    MethodHandle require(String symbol, FunctionDescriptor descriptor) {
        return find(symbol, descriptor).orElseThrow(() ->
                new UnsatisfiedLinkError(symbol + " not found in " + loadedFrom));
    }
}
