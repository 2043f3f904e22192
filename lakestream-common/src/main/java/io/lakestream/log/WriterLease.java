package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The content of a lease file {@code <log>/_leases/<id>.json}: a live write (a Java writer, a Trino or
 * Spark query) that has staged, or will stage, segments named after the lease ({@link
 * LogPaths#newSegmentPath(int, Optional)}). Its holder rewrites it every {@link #heartbeatInterval} with
 * {@code renewals} one higher and deletes it when the write commits or aborts. The orphan sweep keeps the
 * segments of a lease it has seen change within {@code timeoutMillis} of its own clock.
 *
 * <p>A lease is for liveness only: a sweep never makes an acknowledged commit lose data whatever the
 * leases say (docs/format.md, "Orphan sweeps"); a lost lease can only fail its write cleanly.
 *
 * @param formatVersion version of this file format
 * @param id the lease id (32 lower-case hex digits)
 * @param holder who holds it, for people reading the directory (e.g. {@code trino query 20261129_...})
 * @param timeoutMillis how long the sweeper waits, after it last saw the file change, before it takes the
 *     lease for expired
 * @param renewals how many times the holder renewed it
 * @param renewedAtMillis the holder's clock at the last renewal (for people only: the sweeper never
 *     compares it with its own clock)
 */
public record WriterLease(
        int formatVersion, String id, String holder, long timeoutMillis, long renewals, long renewedAtMillis) {
    public static final int FORMAT_VERSION = 1;

    /** Long enough for a GC pause or a slow store, short enough that a crashed writer's files go the same day. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofMinutes(10);

    static final String ID_PATTERN = "[0-9a-f]{32}";
    private static final Pattern ID = Pattern.compile(ID_PATTERN);

    public WriterLease {
        checkId(id);
        requireNonNull(holder, "holder is null");
        checkArgument(timeoutMillis > 0, "timeoutMillis must be positive");
        checkArgument(renewals >= 0, "renewals is negative");
    }

    public static String newId() {
        return UUID.randomUUID().toString().replace("-", "");
    }

    public static String checkId(String id) {
        requireNonNull(id, "id is null");
        checkArgument(ID.matcher(id).matches(), "not a lease id (32 lower-case hex digits): %s", id);
        return id;
    }

    public static boolean isId(String id) {
        return ID.matcher(id).matches();
    }

    /** How often the holder renews: a fifth of the timeout, so four renewals in a row may fail or be late. */
    public Duration heartbeatInterval() {
        return Duration.ofMillis(Math.max(1, timeoutMillis / 5));
    }

    WriterLease renewed(long nowMillis) {
        return new WriterLease(formatVersion, id, holder, timeoutMillis, renewals + 1, nowMillis);
    }

    /** The lease in a lease file, or empty if it cannot be read as one (the sweeper then uses the default timeout). */
    public static Optional<WriterLease> parse(byte[] json) {
        try {
            return Optional.of(LogJson.read(json, WriterLease.class));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }
}
