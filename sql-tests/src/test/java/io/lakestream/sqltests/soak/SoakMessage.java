package io.lakestream.sqltests.soak;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The line protocol between the soak's coordinator and its child JVMs: the coordinator writes one
 * {@link Command} per line to a child's standard input; the child answers each with one {@link Reply}
 * line on its standard output, prefixed with {@link #PREFIX} (engines log to standard output too, so
 * every other line is only copied to the child's log). A tiering child also sends unsolicited {@link
 * Status#EVENT} replies, one per tiering round and table.
 */
final class SoakMessage {
    static final String PREFIX = "@soak ";

    private static final ObjectMapper JSON = new ObjectMapper()
            .setSerializationInclusion(JsonInclude.Include.NON_NULL)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    private SoakMessage() {}

    enum Action {
        /** Run {@link Command#statement} in the child's engine and return its rows. */
        SQL,
        /** Write {@link Command#rows} through the Java writer as one commit with the idempotency key. */
        WRITE,
        /** Commit a namespace property to the catalog (a catalog transaction, nothing else). */
        CATALOG,
        /** Tier every table until the lake holds the whole log (the final pass). */
        TIER,
        /** Finish and exit. */
        STOP
    }

    /**
     * @param changes for {@link Action#WRITE}, one per row: {@code append}, {@code upsert} or {@code delete}
     * @param holdMillis for {@link Action#WRITE}: stage the segments, wait this long, then commit (a long job)
     */
    record Command(
            long id,
            Action action,
            String statement,
            String table,
            List<String> changes,
            List<Map<String, Object>> rows,
            String idempotencyKey,
            long holdMillis) {
        static Command sql(long id, String statement) {
            return new Command(id, Action.SQL, statement, null, null, null, null, 0);
        }

        static Command stop() {
            return new Command(-1, Action.STOP, null, null, null, null, null, 0);
        }
    }

    enum Status {
        /** The child started and takes commands. */
        READY,
        OK,
        ERROR,
        /** Unsolicited: what a tiering round did. */
        EVENT
    }

    /**
     * @param message the error (the engine's whole cause chain), or an event's detail
     * @param outcome an event's tiering outcome, or how a write committed ({@code committed}, {@code already-applied})
     */
    record Reply(long id, Status status, List<List<Object>> rows, String message, String table, String outcome) {
        static Reply ok(long id, List<List<Object>> rows, String outcome) {
            return new Reply(id, Status.OK, rows, null, null, outcome);
        }

        static Reply error(long id, Throwable error) {
            return new Reply(id, Status.ERROR, null, describe(error), null, null);
        }

        /** A tiering round: its figures as one row, and its error if it failed. */
        static Reply event(String table, String outcome, List<Object> figures, String message) {
            return new Reply(-1, Status.EVENT, List.of(figures), message, table, outcome);
        }
    }

    static String encode(Object message) {
        try {
            return JSON.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot encode " + message, e);
        }
    }

    static <T> T decode(String json, Class<T> type) {
        try {
            return JSON.readValue(json, type);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot decode a soak message: " + json, e);
        }
    }

    /** A reply line of the protocol, or empty for any other output of the child. */
    static Optional<Reply> parseReply(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        return Optional.of(decode(line.substring(PREFIX.length()), Reply.class));
    }

    /** Every message of the cause chain, in order (engines wrap the error that names the cause). */
    static String describe(Throwable error) {
        StringBuilder text = new StringBuilder();
        int depth = 0;
        for (Throwable t = error; t != null && depth < 12; t = t.getCause() == t ? null : t.getCause(), depth++) {
            if (!text.isEmpty()) {
                text.append(" | caused by: ");
            }
            text.append(t);
        }
        return text.length() > 4000 ? text.substring(0, 4000) + "..." : text.toString();
    }
}
