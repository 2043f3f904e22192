package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The options of a streaming read ({@code spark.readStream}), besides the batch read options:
 *
 * <ul>
 *   <li>{@code startup.mode}: where a new stream (no checkpoint yet) starts: {@code full} (default: the
 *       table's state, then every change after it), {@code latest} (changes committed after the start),
 *       {@code earliest} (every change since the table was created; fails if retention removed any),
 *       {@code version} (changes committed after log version {@code startup.version}) or {@code
 *       timestamp} (changes committed after {@code startup.timestamp}, an ISO instant or epoch millis).
 *   <li>{@code max-rows-per-trigger}, {@code max-commits-per-trigger}: admission control; a micro-batch
 *       takes whole log commits, at least one, and stops before the one that would pass either limit.
 * </ul>
 *
 * A restarted stream continues from its checkpoint and ignores the startup options.
 */
record LakestreamStreamConf(
        StartMode mode,
        OptionalLong startVersion,
        OptionalLong startTimestampMillis,
        OptionalLong maxRowsPerTrigger,
        OptionalLong maxCommitsPerTrigger) {
    static final String STARTUP_MODE = "startup.mode";
    static final String STARTUP_VERSION = "startup.version";
    static final String STARTUP_TIMESTAMP = "startup.timestamp";
    static final String MAX_ROWS_PER_TRIGGER = "max-rows-per-trigger";
    static final String MAX_COMMITS_PER_TRIGGER = "max-commits-per-trigger";

    enum StartMode {
        FULL,
        LATEST,
        EARLIEST,
        VERSION,
        TIMESTAMP
    }

    LakestreamStreamConf {
        requireNonNull(mode, "mode is null");
        requireNonNull(startVersion, "startVersion is null");
        requireNonNull(startTimestampMillis, "startTimestampMillis is null");
        requireNonNull(maxRowsPerTrigger, "maxRowsPerTrigger is null");
        requireNonNull(maxCommitsPerTrigger, "maxCommitsPerTrigger is null");
    }

    /** @param options the read options (case-insensitive keys, lower-cased) */
    static LakestreamStreamConf resolve(Map<String, String> options) {
        StartMode mode = parseMode(options.getOrDefault(STARTUP_MODE, "full"));
        OptionalLong version = optionalLong(options, STARTUP_VERSION, 0);
        OptionalLong timestamp = options.containsKey(STARTUP_TIMESTAMP)
                ? OptionalLong.of(parseTimestamp(options.get(STARTUP_TIMESTAMP)))
                : OptionalLong.empty();
        if (mode == StartMode.VERSION && version.isEmpty()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "Stream option 'startup.mode' = 'version' needs the option 'startup.version' (the log version after which changes are read)");
        }
        if (mode == StartMode.TIMESTAMP && timestamp.isEmpty()) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "Stream option 'startup.mode' = 'timestamp' needs the option 'startup.timestamp' (e.g. 2026-12-01T12:00:00Z, or epoch milliseconds)");
        }
        return new LakestreamStreamConf(
                mode,
                version,
                timestamp,
                optionalLong(options, MAX_ROWS_PER_TRIGGER, 1),
                optionalLong(options, MAX_COMMITS_PER_TRIGGER, 1));
    }

    boolean hasLimits() {
        return maxRowsPerTrigger.isPresent() || maxCommitsPerTrigger.isPresent();
    }

    private static StartMode parseMode(String value) {
        try {
            return StartMode.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new LakestreamException(
                    INVALID_READ_OPTIONS,
                    "Stream option 'startup.mode' must be one of full, latest, earliest, version, timestamp, but was '%s'"
                            .formatted(value));
        }
    }

    private static long parseTimestamp(String value) {
        String trimmed = value.trim();
        try {
            return Long.parseLong(trimmed);
        } catch (NumberFormatException notMillis) {
            try {
                return Instant.parse(trimmed).toEpochMilli();
            } catch (DateTimeParseException e) {
                throw new LakestreamException(
                        INVALID_READ_OPTIONS,
                        "Stream option 'startup.timestamp' must be an ISO instant (e.g. 2026-12-01T12:00:00Z) or epoch milliseconds, but was '%s'"
                                .formatted(value));
            }
        }
    }

    private static OptionalLong optionalLong(Map<String, String> options, String key, long min) {
        String value = options.get(key);
        if (value == null) {
            return OptionalLong.empty();
        }
        try {
            long parsed = Long.parseLong(value.trim());
            if (parsed >= min) {
                return OptionalLong.of(parsed);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new LakestreamException(
                INVALID_READ_OPTIONS,
                "Stream option '%s' must be a whole number of at least %s, but was '%s'".formatted(key, min, value));
    }
}
