package dev.primer;

/** Base of the exceptions Primer raises for failures that are not the caller's argument errors. */
public class PrimerException extends RuntimeException {
    public PrimerException(String message) { super(message); }
    public PrimerException(String message, Throwable cause) { super(message, cause); }
}
