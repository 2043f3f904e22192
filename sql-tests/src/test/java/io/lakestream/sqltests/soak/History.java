package io.lakestream.sqltests.soak;

import io.lakestream.sqltests.soak.Operation.Outcome;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything the soak did, in the order the coordinator saw it: each operation's invocation and outcome,
 * and every kill, restart, fault and tiering event. Kept in memory for the checker and written as it
 * happens to {@code history.jsonl} (one JSON object per line) for whoever investigates a failure. Times
 * are the coordinator's monotonic clock, so "acknowledged before this read started" is exact.
 */
final class History implements AutoCloseable {
    private final long startNanos = System.nanoTime();
    private final Map<Long, Operation> operations = new LinkedHashMap<>();
    private final BufferedWriter file;

    History(Path file) {
        try {
            this.file = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    synchronized void invoked(Operation operation) {
        operations.putIfAbsent(operation.id(), operation);
        operation.invoked(System.nanoTime());
        write(Map.of(
                "event", operation.attempts() == 1 ? "invoke" : "retry",
                "op", operation.id(),
                "slot", operation.slot(),
                "attempt", operation.attempts(),
                "command", operation.command()));
    }

    synchronized void completed(Operation operation, Outcome outcome, String error) {
        operation.completed(outcome, System.nanoTime(), error);
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("event", outcome.name().toLowerCase(java.util.Locale.ROOT));
        line.put("op", operation.id());
        line.put("slot", operation.slot());
        if (error != null) {
            line.put("error", error);
        }
        write(line);
    }

    /** A failed attempt of a retryable operation; the operation stays pending until its retry. */
    synchronized void attemptFailed(Operation operation, String error) {
        write(Map.of("event", "attempt-failed", "op", operation.id(), "slot", operation.slot(), "error", error));
    }

    /** A kill, restart, fault or tiering event. */
    synchronized void note(String slot, String event, String detail) {
        write(Map.of("event", event, "slot", slot, "detail", detail));
    }

    synchronized Optional<Operation> operation(long id) {
        return Optional.ofNullable(operations.get(id));
    }

    /** The write operations invoked so far, for a check that runs while the soak goes on. */
    synchronized List<OperationState> writes() {
        List<OperationState> states = new ArrayList<>();
        for (Operation operation : operations.values()) {
            if (operation.isWrite()) {
                states.add(new OperationState(
                        operation, operation.outcome(), operation.invokedNanos(), operation.completedNanos()));
            }
        }
        return states;
    }

    /** An operation's state at one moment: what a check may rely on while other threads go on. */
    record OperationState(Operation operation, Outcome outcome, long invokedNanos, long completedNanos) {
        boolean acknowledgedBefore(long nanos) {
            return outcome == Outcome.OK && completedNanos < nanos;
        }

        boolean invokedBefore(long nanos) {
            return invokedNanos < nanos;
        }
    }

    long elapsedMillis() {
        return (System.nanoTime() - startNanos) / 1_000_000;
    }

    private void write(Map<String, Object> line) {
        Map<String, Object> timed = new LinkedHashMap<>();
        timed.put("ms", elapsedMillis());
        timed.putAll(line);
        try {
            file.write(SoakMessage.encode(timed));
            file.newLine();
            file.flush();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the soak history", e);
        }
    }

    @Override
    public synchronized void close() throws IOException {
        file.close();
    }
}
