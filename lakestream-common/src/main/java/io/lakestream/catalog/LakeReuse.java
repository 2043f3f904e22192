package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import java.time.Duration;

/**
 * How long a union read may pin a lake state loaded earlier instead of reading the catalog again. A union
 * read takes its freshness from the log: lake snapshot S with its offsets O, plus the log from O to the
 * newest ends E, is the whole table at the newest log version whichever lake snapshot S is, as long as the
 * log still holds {@code [O, E)} (retention removes only what is tiered and older than its retention). So a
 * read does not need the newest lake, only a recent one; the catalog round trip and the planning of a new
 * snapshot can happen in the background ({@link LakestreamTableCache#pinRecent}).
 *
 * @param refreshAfter a read that finds the lake older than this starts a background refresh (catalog read,
 *     then the new snapshot planned) and goes on with the lake it has
 * @param maxStaleness a read never pins a lake read from the catalog longer ago than this: it reads the
 *     catalog itself. Zero turns reuse off: every read reads the catalog (and {@code refreshAfter} does not
 *     matter)
 */
public record LakeReuse(Duration refreshAfter, Duration maxStaleness) {
    /** Every read reads the catalog. */
    public static final LakeReuse NEVER = new LakeReuse(Duration.ZERO, Duration.ZERO);

    public LakeReuse {
        requireNonNull(refreshAfter, "refreshAfter is null");
        requireNonNull(maxStaleness, "maxStaleness is null");
        if (refreshAfter.isNegative() || maxStaleness.isNegative()) {
            throw new IllegalArgumentException("durations must not be negative: refreshAfter %s, maxStaleness %s"
                    .formatted(refreshAfter, maxStaleness));
        }
        if (maxStaleness.isPositive() && refreshAfter.compareTo(maxStaleness) > 0) {
            throw new IllegalArgumentException(
                    "refreshAfter %s is longer than maxStaleness %s: the background refresh would never come first"
                            .formatted(refreshAfter, maxStaleness));
        }
    }

    boolean enabled() {
        return maxStaleness.isPositive();
    }
}
