package dev.primer.cli.bench;

import java.util.ArrayDeque;
import java.util.Deque;

/** Closes what a benchmark allocated (device arrays, timers), last first, even when it failed. */
final class Closer implements AutoCloseable {
    private final Deque<AutoCloseable> resources = new ArrayDeque<>();

    <T extends AutoCloseable> T add(T resource) {
        resources.push(resource);
        return resource;
    }

    @Override
    public void close() {
        RuntimeException first = null;
        while (!resources.isEmpty()) {
            try {
                resources.pop().close();
            } catch (Exception e) {
                if (first == null) first = e instanceof RuntimeException r ? r : new IllegalStateException(e);
            }
        }
        if (first != null) throw first;
    }
}
