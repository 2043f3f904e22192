package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.Durations;
import io.lakestream.common.LakestreamException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;

/**
 * Configuration of the tiering service. Every value has a default; {@link #fromProperties} reads
 * {@code tiering.*} keys (durations as {@code 500ms}, {@code 30s}, {@code 5m}, {@code 1h}; sizes as
 * {@code 64MB}).
 *
 * @param interval pause between two passes over all tables
 * @param maxRecordsPerBucket most log records of one bucket one round reads; bounds memory (a primary-key
 *     bucket collapses at most this many changes at once) and the size of a commit
 * @param targetFileSizeBytes data and delete files roll over at this size
 * @param writerThreads buckets written in parallel within a round
 * @param retention log segments fully tiered and committed longer ago than this are removed
 * @param compactionDeleteFiles compact a bucket once it has at least this many delete files
 * @param compactionSmallFiles compact a bucket once it has at least this many data files smaller than
 *     {@code compactionSmallFileBytes}
 * @param compactionSmallFileBytes what counts as a small data file
 * @param compactionSortMaxRecords compaction writes a primary-key bucket sorted by key (readers then find
 *     the lake rows a log tail changes by a walk in key order) when it has at most this many rows; the
 *     sort holds them in memory, so this bounds compaction's memory; 0 never sorts
 * @param maxConsecutiveFailures a table whose rounds fail this many times in a row (for reasons that
 *     may be transient) stops tiering until resumed; bad states stop it at once
 * @param orphanAge log files no commit references (segments staged by writers that crashed or whose
 *     distributed write failed, temporary files of an interrupted publish) are removed once they are older
 *     than this and no live writer lease protects them; a sweep never makes an acknowledged commit lose
 *     data (it publishes a log commit before deleting, see docs/format.md), so this only bounds how soon a
 *     write that holds no lease may be failed
 * @param orphanSweepInterval each table's files are listed for orphans at most this often
 * @param lakeOrphanAge lake data, delete and metadata files no retained metadata references are removed once
 *     they are older than this; nothing makes an Iceberg commit check that its files still exist, so this
 *     must exceed the longest lake commit in progress (a tiering round, a compaction, an engine's
 *     maintenance job on the lake) plus the clock difference between the storage and the tiering service
 */
public record TieringConfig(
        Duration interval,
        long maxRecordsPerBucket,
        long targetFileSizeBytes,
        int writerThreads,
        Duration retention,
        int compactionDeleteFiles,
        int compactionSmallFiles,
        long compactionSmallFileBytes,
        long compactionSortMaxRecords,
        int maxConsecutiveFailures,
        Duration orphanAge,
        Duration orphanSweepInterval,
        Duration lakeOrphanAge) {
    public static final String PREFIX = "tiering.";

    /** Below this, writes holding no lease would be failed too often (their segments swept before their commit). */
    public static final Duration MIN_ORPHAN_AGE = Duration.ofMinutes(10);

    /** Iceberg's own orphan removal keeps files younger than 3 days by default: so do we. */
    public static final Duration DEFAULT_LAKE_ORPHAN_AGE = Duration.ofDays(3);

    /** Below this, the files of a live lake commit (nothing protects them but their age) could be removed. */
    public static final Duration MIN_LAKE_ORPHAN_AGE = Duration.ofDays(1);

    public TieringConfig {
        requireNonNull(interval, "interval is null");
        requireNonNull(retention, "retention is null");
        check(!interval.isNegative() && !interval.isZero(), "tiering.interval must be positive");
        check(maxRecordsPerBucket >= 1, "tiering.max-records-per-bucket must be at least 1");
        check(targetFileSizeBytes >= 1024, "tiering.target-file-size must be at least 1KB");
        check(writerThreads >= 1, "tiering.writer-threads must be at least 1");
        check(!retention.isNegative(), "tiering.log-retention must not be negative");
        check(compactionDeleteFiles >= 1, "tiering.compaction.delete-files must be at least 1");
        check(compactionSmallFiles >= 2, "tiering.compaction.small-files must be at least 2");
        check(compactionSmallFileBytes >= 0, "tiering.compaction.small-file-size must not be negative");
        check(compactionSortMaxRecords >= 0, "tiering.compaction.sort-max-records must not be negative");
        check(maxConsecutiveFailures >= 1, "tiering.max-consecutive-failures must be at least 1");
        requireNonNull(orphanAge, "orphanAge is null");
        requireNonNull(orphanSweepInterval, "orphanSweepInterval is null");
        check(
                orphanAge.compareTo(MIN_ORPHAN_AGE) >= 0,
                "tiering.orphan-age must be at least 10m: a writer's staged segments must not be taken for orphans while it may still commit them");
        check(
                !orphanSweepInterval.isNegative() && !orphanSweepInterval.isZero(),
                "tiering.orphan-sweep-interval must be positive");
        requireNonNull(lakeOrphanAge, "lakeOrphanAge is null");
        check(
                lakeOrphanAge.compareTo(MIN_LAKE_ORPHAN_AGE) >= 0,
                "tiering.lake-orphan-age must be at least 1d: the files of a lake commit in progress are protected by their age only");
    }

    public static TieringConfig defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    public Builder toBuilder() {
        return new Builder()
                .interval(interval)
                .maxRecordsPerBucket(maxRecordsPerBucket)
                .targetFileSizeBytes(targetFileSizeBytes)
                .writerThreads(writerThreads)
                .retention(retention)
                .compactionDeleteFiles(compactionDeleteFiles)
                .compactionSmallFiles(compactionSmallFiles)
                .compactionSmallFileBytes(compactionSmallFileBytes)
                .compactionSortMaxRecords(compactionSortMaxRecords)
                .maxConsecutiveFailures(maxConsecutiveFailures)
                .orphanAge(orphanAge)
                .orphanSweepInterval(orphanSweepInterval)
                .lakeOrphanAge(lakeOrphanAge);
    }

    /** Reads {@code tiering.*} properties over the defaults; unknown {@code tiering.*} keys are an error. */
    public static TieringConfig fromProperties(Map<String, String> properties) {
        Builder builder = builder();
        properties.forEach((key, value) -> {
            if (!key.startsWith(PREFIX)) {
                return;
            }
            String name = key.substring(PREFIX.length());
            try {
                switch (name) {
                    case "interval" -> builder.interval(parseDuration(value));
                    case "max-records-per-bucket" -> builder.maxRecordsPerBucket(Long.parseLong(value.trim()));
                    case "target-file-size" -> builder.targetFileSizeBytes(parseBytes(value));
                    case "writer-threads" -> builder.writerThreads(Integer.parseInt(value.trim()));
                    case "log-retention" -> builder.retention(parseDuration(value));
                    case "compaction.delete-files" -> builder.compactionDeleteFiles(Integer.parseInt(value.trim()));
                    case "compaction.small-files" -> builder.compactionSmallFiles(Integer.parseInt(value.trim()));
                    case "compaction.small-file-size" -> builder.compactionSmallFileBytes(parseBytes(value));
                    case "compaction.sort-max-records" ->
                        builder.compactionSortMaxRecords(Long.parseLong(value.trim()));
                    case "max-consecutive-failures" -> builder.maxConsecutiveFailures(Integer.parseInt(value.trim()));
                    case "orphan-age" -> builder.orphanAge(parseDuration(value));
                    case "orphan-sweep-interval" -> builder.orphanSweepInterval(parseDuration(value));
                    case "lake-orphan-age" -> builder.lakeOrphanAge(parseDuration(value));
                    default ->
                        throw new LakestreamException(
                                INVALID_CATALOG_CONFIG,
                                "Unknown tiering property '%s'; known: interval, max-records-per-bucket, target-file-size, writer-threads, log-retention, compaction.delete-files, compaction.small-files, compaction.small-file-size, compaction.sort-max-records, max-consecutive-failures, orphan-age, orphan-sweep-interval, lake-orphan-age"
                                        .formatted(key));
                }
            } catch (NumberFormatException e) {
                throw new LakestreamException(
                        INVALID_CATALOG_CONFIG, "Invalid value '%s' for tiering property '%s'".formatted(value, key));
            }
        });
        return builder.build();
    }

    static Duration parseDuration(String value) {
        return Durations.parse(value);
    }

    static long parseBytes(String value) {
        String text = value.trim().toUpperCase(Locale.ROOT);
        long unit = 1;
        for (String suffix : new String[] {"KB", "MB", "GB", "B"}) {
            if (text.endsWith(suffix)) {
                unit = switch (suffix) {
                    case "KB" -> 1L << 10;
                    case "MB" -> 1L << 20;
                    case "GB" -> 1L << 30;
                    default -> 1;
                };
                text = text.substring(0, text.length() - suffix.length()).trim();
                break;
            }
        }
        return Math.multiplyExact(Long.parseLong(text), unit);
    }

    private static void check(boolean condition, String message) {
        if (!condition) {
            throw new LakestreamException(INVALID_CATALOG_CONFIG, "Invalid tiering configuration: " + message);
        }
    }

    public static final class Builder {
        private Duration interval = Duration.ofSeconds(30);
        private long maxRecordsPerBucket = 1_000_000;
        private long targetFileSizeBytes = 128L << 20;
        private int writerThreads = Math.max(1, Runtime.getRuntime().availableProcessors());
        private Duration retention = Duration.ofHours(24);
        private int compactionDeleteFiles = 20;
        private int compactionSmallFiles = 20;
        private long compactionSmallFileBytes = 16L << 20;
        private long compactionSortMaxRecords = 1_000_000;
        private int maxConsecutiveFailures = 5;
        private Duration orphanAge = Duration.ofHours(1);
        private Duration orphanSweepInterval = Duration.ofHours(1);
        private Duration lakeOrphanAge = DEFAULT_LAKE_ORPHAN_AGE;

        private Builder() {}

        public Builder interval(Duration interval) {
            this.interval = interval;
            return this;
        }

        public Builder maxRecordsPerBucket(long maxRecordsPerBucket) {
            this.maxRecordsPerBucket = maxRecordsPerBucket;
            return this;
        }

        public Builder targetFileSizeBytes(long targetFileSizeBytes) {
            this.targetFileSizeBytes = targetFileSizeBytes;
            return this;
        }

        public Builder writerThreads(int writerThreads) {
            this.writerThreads = writerThreads;
            return this;
        }

        public Builder retention(Duration retention) {
            this.retention = retention;
            return this;
        }

        public Builder compactionDeleteFiles(int compactionDeleteFiles) {
            this.compactionDeleteFiles = compactionDeleteFiles;
            return this;
        }

        public Builder compactionSmallFiles(int compactionSmallFiles) {
            this.compactionSmallFiles = compactionSmallFiles;
            return this;
        }

        public Builder compactionSmallFileBytes(long compactionSmallFileBytes) {
            this.compactionSmallFileBytes = compactionSmallFileBytes;
            return this;
        }

        public Builder compactionSortMaxRecords(long compactionSortMaxRecords) {
            this.compactionSortMaxRecords = compactionSortMaxRecords;
            return this;
        }

        public Builder maxConsecutiveFailures(int maxConsecutiveFailures) {
            this.maxConsecutiveFailures = maxConsecutiveFailures;
            return this;
        }

        public Builder orphanAge(Duration orphanAge) {
            this.orphanAge = orphanAge;
            return this;
        }

        public Builder orphanSweepInterval(Duration orphanSweepInterval) {
            this.orphanSweepInterval = orphanSweepInterval;
            return this;
        }

        public Builder lakeOrphanAge(Duration lakeOrphanAge) {
            this.lakeOrphanAge = lakeOrphanAge;
            return this;
        }

        public TieringConfig build() {
            return new TieringConfig(
                    interval,
                    maxRecordsPerBucket,
                    targetFileSizeBytes,
                    writerThreads,
                    retention,
                    compactionDeleteFiles,
                    compactionSmallFiles,
                    compactionSmallFileBytes,
                    compactionSortMaxRecords,
                    maxConsecutiveFailures,
                    orphanAge,
                    orphanSweepInterval,
                    lakeOrphanAge);
        }
    }
}
