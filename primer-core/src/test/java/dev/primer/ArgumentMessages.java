package dev.primer;

import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Checks that an exception's message starts by naming the argument at fault, as a whole word: "out"
 * accepts "out: ..." and "out has 9 elements", not "outType: ..."; "in" not "init" or "inLength".
 */
public final class ArgumentMessages {
    private ArgumentMessages() {}

    /** {@code start} (an argument's name, or a longer opening) begins the message and ends at a word boundary. */
    public static void assertStartsWith(String start, Throwable e) {
        String message = e.getMessage();
        boolean named = message != null && Pattern.compile("^" + Pattern.quote(start) + "(?!\\w)").matcher(message).find();
        assertTrue(named, () -> "the message should start with '" + start + "' (a whole word): " + e);
    }
}
