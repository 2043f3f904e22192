package io.lakestream.sqltests.soak;

import static java.util.Objects.requireNonNull;

import io.lakestream.sqltests.soak.SoakMessage.Command;
import java.util.List;
import java.util.Optional;

/**
 * One operation of the soak's history: what a slot asked its child to do, what the operation changes
 * if it commits (its {@link Effect}, from which the oracle is built), and what became of it. The
 * mutable part is written only under the {@link History}'s lock.
 */
final class Operation {
    enum Outcome {
        PENDING,
        /** Acknowledged: the child answered that it committed. */
        OK,
        /** The child answered with an error: nothing of it may be visible. */
        FAILED,
        /** The child was killed (or hung and was killed) before it answered: visible at most once, or not at all. */
        UNKNOWN
    }

    /** What an operation changes when it commits. */
    sealed interface Effect {}

    /** Rows appended to {@code events}: ids {@code operation * 1000 + i}, tag {@code op<operation>}. */
    record Append(List<Long> ids) implements Effect {
        Append {
            ids = List.copyOf(ids);
        }
    }

    enum Change {
        UPSERT,
        DELETE,
        /** {@code UPDATE ... WHERE k IN (...)}: changes the row only if it exists. */
        UPDATE
    }

    /** A change of one owned key of {@code items}; an upsert or update sets {@code v} to {@code value}. */
    record KeyChange(long key, Change change, long value) {}

    record KeyChanges(List<KeyChange> changes) implements Effect {
        KeyChanges {
            changes = List.copyOf(changes);
        }
    }

    /** {@code UPDATE counters SET n = n + 1 WHERE id = counter}. */
    record Increment(long counter) implements Effect {}

    /**
     * A commit to the catalog itself (a namespace property): no row changes, but a catalog transaction
     * that a kill can interrupt, so that a lock left behind by a killed process shows (as no progress).
     */
    record CatalogCommit() implements Effect {}

    /** A read; checked when it returns against what was acknowledged before it started. */
    record Read(View view) implements Effect {}

    private final long id;
    private final String slot;
    private final Command command;
    private final Effect effect;

    private Outcome outcome = Outcome.PENDING;
    private long invokedNanos;
    private long completedNanos;
    private int attempts;
    private String error;

    Operation(long id, String slot, Command command, Effect effect) {
        this.id = id;
        this.slot = requireNonNull(slot, "slot is null");
        this.command = requireNonNull(command, "command is null");
        this.effect = requireNonNull(effect, "effect is null");
    }

    long id() {
        return id;
    }

    String slot() {
        return slot;
    }

    Command command() {
        return command;
    }

    Effect effect() {
        return effect;
    }

    boolean isWrite() {
        return !(effect instanceof Read);
    }

    /** Java writes carry an idempotency key: after a failure or a kill they are retried with the same key. */
    boolean retryable() {
        return command.idempotencyKey() != null;
    }

    // the rest is read and written under the History's lock

    Outcome outcome() {
        return outcome;
    }

    long invokedNanos() {
        return invokedNanos;
    }

    long completedNanos() {
        return completedNanos;
    }

    int attempts() {
        return attempts;
    }

    Optional<String> error() {
        return Optional.ofNullable(error);
    }

    void invoked(long nanos) {
        if (attempts == 0) {
            invokedNanos = nanos;
        }
        attempts++;
        outcome = Outcome.PENDING;
    }

    void completed(Outcome outcome, long nanos, String error) {
        this.outcome = outcome;
        this.completedNanos = nanos;
        this.error = error;
    }

    /** A description for the report: the statement or the Java write. */
    String describe() {
        String what = command.statement() != null
                ? command.statement()
                : effect instanceof CatalogCommit
                        ? "java catalog commit (namespace property)"
                        : "java %s %s key=%s hold=%dms"
                                .formatted(
                                        command.table(),
                                        command.changes(),
                                        command.idempotencyKey(),
                                        command.holdMillis());
        if (what.length() > 200) {
            what = what.substring(0, 200) + "...";
        }
        return "op %d (%s, %s, %d attempt(s)%s): %s"
                .formatted(id, slot, outcome, attempts, error == null ? "" : ", error: " + shorten(error), what);
    }

    private static String shorten(String text) {
        return text.length() > 300 ? text.substring(0, 300) + "..." : text;
    }
}
