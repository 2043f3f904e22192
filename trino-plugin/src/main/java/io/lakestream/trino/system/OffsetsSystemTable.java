package io.lakestream.trino.system;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_TABLE_NOT_FOUND;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.DateTimeEncoding.packDateTimeWithZone;
import static io.trino.spi.type.IntegerType.INTEGER;
import static io.trino.spi.type.TimeZoneKey.UTC_KEY;
import static io.trino.spi.type.TimestampWithTimeZoneType.TIMESTAMP_TZ_MILLIS;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.BucketFreshness;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPin;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import io.lakestream.trino.LakestreamCatalogAccess;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTransactionHandle;
import io.trino.spi.connector.InMemoryRecordSet;
import io.trino.spi.connector.RecordCursor;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.predicate.TupleDomain;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code "t$offsets"}: one row per bucket (per partition and bucket, with the partition path, for a table whose log
 * is kept per partition and bucket) with how far the lake lags behind the log: the lake's
 * offset, the log's end, the changes in between, and when the oldest of them was committed.
 */
public final class OffsetsSystemTable implements SystemTable {
    private static final List<ColumnMetadata> COLUMNS = List.of(
            column(
                    "partition",
                    VARCHAR,
                    "the partition path of the bucket, for a table whose log is kept per partition and bucket; NULL otherwise"),
            column("bucket", INTEGER, "log bucket"),
            column("lake_offset", BIGINT, "next offset of the bucket not yet in the lake"),
            column("log_end_offset", BIGINT, "next offset not yet in the log"),
            column("records_behind", BIGINT, "changes in the log that the lake does not hold yet"),
            column(
                    "oldest_untiered_change",
                    TIMESTAMP_TZ_MILLIS,
                    "commit time of the oldest change not yet in the lake; NULL when the lake is up to date"),
            column(
                    "lake_snapshot_id",
                    BIGINT,
                    "the lake snapshot these offsets come from; NULL before the first tiering"));

    private final ConnectorTableMetadata metadata;
    private final SchemaTableName table;
    private final LakestreamCatalogAccess catalog;

    public OffsetsSystemTable(SchemaTableName name, SchemaTableName table, LakestreamCatalogAccess catalog) {
        this.metadata = new ConnectorTableMetadata(requireNonNull(name, "name is null"), COLUMNS);
        this.table = requireNonNull(table, "table is null");
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    private static ColumnMetadata column(String name, io.trino.spi.type.Type type, String comment) {
        return ColumnMetadata.builder()
                .setName(name)
                .setType(type)
                .setComment(Optional.of(comment))
                .build();
    }

    @Override
    public Distribution getDistribution() {
        return Distribution.SINGLE_COORDINATOR;
    }

    @Override
    public ConnectorTableMetadata getTableMetadata() {
        return metadata;
    }

    @Override
    public RecordCursor cursor(
            ConnectorTransactionHandle transaction, ConnectorSession session, TupleDomain<Integer> constraint) {
        List<BucketFreshness> freshness;
        OptionalLong lakeSnapshotId;
        try {
            // pinned as a query pins it: a lake and a log version read together (the lake read again should
            // tiering and retention run in between), so the offsets are those a union read would see
            LakestreamTable lakestreamTable = catalog.pinTable(table)
                    .orElseThrow(() -> new TrinoException(
                            LAKESTREAM_TABLE_NOT_FOUND, "Table %s does not exist (was it dropped?)".formatted(table)))
                    .table();
            ReadPin pin = ReadPin.resolve(lakestreamTable, ReadOptions.UNION);
            lakeSnapshotId = pin.lake().snapshotId();
            freshness = UnionReadPlanner.freshness(
                    lakestreamTable, ReadOptions.UNION.atLogVersion(pin.log().version()));
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        InMemoryRecordSet.Builder rows = InMemoryRecordSet.builder(metadata);
        for (BucketFreshness bucket : freshness) {
            rows.addRow(
                    bucket.partition().orElse(null),
                    bucket.bucket(),
                    bucket.lakeOffset(),
                    bucket.logEndOffset(),
                    bucket.recordsBehind(),
                    bucket.oldestUntieredCommitMillis().isPresent()
                            ? packDateTimeWithZone(
                                    bucket.oldestUntieredCommitMillis().getAsLong(), UTC_KEY)
                            : null,
                    lakeSnapshotId.isPresent() ? lakeSnapshotId.getAsLong() : null);
        }
        return rows.build().cursor();
    }
}
