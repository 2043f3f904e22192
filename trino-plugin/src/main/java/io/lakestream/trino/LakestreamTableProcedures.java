package io.lakestream.trino;

import static io.lakestream.common.LakestreamError.INVALID_CATALOG_CONFIG;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.tiering.TableMaintenance;
import io.lakestream.tiering.TableSnapshotExpiry;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.compaction.TableCompaction;
import io.lakestream.tiering.expiry.PartitionExpiry;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * Runs the table procedures on the coordinator with the tiering module's code, the same the Spark procedures and
 * the embedded service run ({@link TableCompaction}, {@link TableSnapshotExpiry}, {@link TableMaintenance}), with
 * the tiering service's default configuration. Each returns its counts, which Trino shows as the statement's
 * result.
 */
final class LakestreamTableProcedures {
    private LakestreamTableProcedures() {}

    static LakestreamTableExecuteHandle handle(
            SchemaTableName table, LakestreamTableProcedure procedure, Map<String, Object> properties) {
        OptionalLong targetFileSize = properties.get("target_file_size") instanceof DataSize size
                ? OptionalLong.of(size.toBytes())
                : OptionalLong.empty();
        OptionalLong retention = properties.get("retention_threshold") instanceof Duration duration
                ? OptionalLong.of(duration.toMillis())
                : OptionalLong.empty();
        if (properties.get("retention") instanceof String value) {
            // checked here, so a bad value fails before anything runs, with the property's syntax and error
            retention = OptionalLong.of(PartitionExpiration.parseRetention(table.toString(), "retention", value)
                    .toMillis());
        }
        OptionalInt retainLast =
                properties.get("retain_last") instanceof Integer count ? OptionalInt.of(count) : OptionalInt.empty();
        if (targetFileSize.isPresent() && targetFileSize.getAsLong() < 1024) {
            throw new LakestreamException(
                    INVALID_CATALOG_CONFIG,
                    "target_file_size must be at least 1kB, not %s bytes".formatted(targetFileSize.getAsLong()));
        }
        return new LakestreamTableExecuteHandle(
                table.getSchemaName(),
                table.getTableName(),
                procedure,
                targetFileSize,
                retention,
                retainLast,
                TupleDomain.all());
    }

    static Map<String, Long> execute(LakestreamTable table, LakestreamTableExecuteHandle handle) {
        TieringConfig defaults = TieringConfig.defaults();
        Clock clock = Clock.systemUTC();
        return switch (handle.procedure()) {
            case COMPACT -> {
                // the WHERE selects buckets as Spark's where does: those with a file that may hold a matching row
                Optional<Domain> buckets = LakestreamFilterTranslator.bucketDomain(handle.constraint());
                TableCompaction.Result result = new TableCompaction(defaults, TieringHooks.NONE)
                        .compact(
                                table,
                                LakestreamFilterTranslator.toExpression(handle.constraint()),
                                bucket -> buckets.isEmpty() || buckets.get().includesNullableValue((long) bucket),
                                handle.targetFileSizeBytes().orElse(defaults.targetFileSizeBytes()));
                yield Map.of(
                        "rewritten_data_files_count", (long) result.dataFilesRemoved(),
                        "removed_delete_files_count", (long) result.deleteFilesRemoved(),
                        "added_data_files_count", (long) result.dataFilesAdded());
            }
            case EXPIRE_SNAPSHOTS -> {
                TableSnapshotExpiry.Result result = TableSnapshotExpiry.expire(
                        table,
                        clock.instant().minusMillis(handle.retentionMillis().orElseThrow()),
                        handle.retainLast().orElse(1));
                yield Map.of(
                        "expired_snapshots_count", (long) result.expiredSnapshots(),
                        "deleted_files_count", (long) result.deletedFiles());
            }
            case EXPIRE_LOG ->
                Map.of("removed_segments_count", (long) TableMaintenance.expireLog(
                        table,
                        handle.retentionMillis().isPresent()
                                ? java.time.Duration.ofMillis(
                                        handle.retentionMillis().getAsLong())
                                : defaults.retention(),
                        clock.millis()));
            case REMOVE_ORPHANS ->
                Map.of("removed_files_count", (long) TableMaintenance.removeOrphans(table, defaults, clock));
            case EXPIRE_PARTITIONS -> {
                Optional<java.time.Duration> retention =
                        handle.retentionMillis().isPresent()
                                ? Optional.of(java.time.Duration.ofMillis(
                                        handle.retentionMillis().getAsLong()))
                                : Optional.empty();
                PartitionExpiry.Result result =
                        new PartitionExpiry(TieringHooks.NONE, clock).expireNow(table, retention);
                yield Map.of(
                        "expired_from_log_count", (long) result.expiredFromLog().size(),
                        "deleted_from_lake_count",
                                (long) result.lake().deleted().size(),
                        "waiting_count", (long) result.lake().waiting().size());
            }
        };
    }
}
