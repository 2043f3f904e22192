package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakeLayoutValidator;
import io.lakestream.table.SchemaHistory;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import org.apache.spark.sql.connector.catalog.SupportsRead;
import org.apache.spark.sql.connector.catalog.SupportsRowLevelOperations;
import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperationBuilder;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Lakestream table as Spark sees it: {@code t} reads the union of lake and log (or the lake alone
 * with {@code read-mode=lake}) and takes writes; {@code t$lake} is the committed lake; {@code
 * t$changes} is the log as a changelog; {@code t$offsets} shows per bucket how far the lake lags
 * behind the log. A table loaded with {@code VERSION AS OF} or {@code
 * TIMESTAMP AS OF} reads that state and takes no writes.
 */
public class LakestreamTable implements SupportsRead, SupportsWrite, SupportsRowLevelOperations {
    /** Which view of the table this is, from the name suffix. */
    enum View {
        DATA(""),
        LAKE("$lake"),
        CHANGES("$changes"),
        OFFSETS("$offsets");

        private final String suffix;

        View(String suffix) {
            this.suffix = suffix;
        }

        String suffix() {
            return suffix;
        }
    }

    private final String catalogName;
    private final LakestreamTableRef ref;
    private final io.lakestream.table.LakestreamTable table;
    private final View view;
    private final OptionalLong logVersion;
    private final OptionalLong asOfTimestampMillis;
    /** The scans Spark built of this loaded table: what the statement that loaded it read, if it writes it too. */
    private final LakestreamTargetScans scans = new LakestreamTargetScans();

    LakestreamTable(
            String catalogName,
            LakestreamTableRef ref,
            io.lakestream.table.LakestreamTable table,
            View view,
            OptionalLong logVersion,
            OptionalLong asOfTimestampMillis) {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.ref = requireNonNull(ref, "ref is null");
        this.table = requireNonNull(table, "table is null");
        this.view = requireNonNull(view, "view is null");
        this.logVersion = requireNonNull(logVersion, "logVersion is null");
        this.asOfTimestampMillis = requireNonNull(asOfTimestampMillis, "asOfTimestampMillis is null");
    }

    /**
     * The table as the catalog loads it: a table whose log is kept per (partition, bucket) also takes deletes of whole
     * partitions ({@link LakestreamPartitionedLogTable}). Only there: Spark hands a {@code DELETE} without a condition
     * on any table that takes such deletes to them alone, never to the row-level operation.
     */
    static LakestreamTable of(
            String catalogName, LakestreamTableRef ref, io.lakestream.table.LakestreamTable table, View view) {
        if (view == View.DATA && table.log().isPartitionedLog()) {
            return new LakestreamPartitionedLogTable(catalogName, ref, table);
        }
        return new LakestreamTable(catalogName, ref, table, view, OptionalLong.empty(), OptionalLong.empty());
    }

    LakestreamTable atLogVersion(long version) {
        return travelled(OptionalLong.of(version), asOfTimestampMillis);
    }

    LakestreamTable asOfTimestamp(long timestampMillis) {
        return travelled(logVersion, OptionalLong.of(timestampMillis));
    }

    /**
     * The time-travel table, with the columns of its version's time ({@link SchemaHistory}): {@link #schema} and
     * every reader, on the driver and the executors (through the ref), use the schema current at that log version.
     * A version or time the table does not have is reported when the read pins it.
     */
    private LakestreamTable travelled(OptionalLong newLogVersion, OptionalLong newAsOfTimestampMillis) {
        long version = newLogVersion.isPresent()
                ? newLogVersion.getAsLong()
                : newAsOfTimestampMillis.isPresent()
                        ? table.log().versionAsOf(newAsOfTimestampMillis.getAsLong())
                        : table.log().latestSnapshot().version();
        Optional<Integer> schemaId = SchemaHistory.schemaIdAt(table.lake().properties(), version);
        return new LakestreamTable(
                catalogName,
                schemaId.map(ref::withSchemaId).orElse(ref),
                schemaId.map(id -> SchemaHistory.withSchema(table, id)).orElse(table),
                view,
                newLogVersion,
                newAsOfTimestampMillis);
    }

    io.lakestream.table.LakestreamTable table() {
        return table;
    }

    LakestreamTableRef ref() {
        return ref;
    }

    View view() {
        return view;
    }

    OptionalLong logVersion() {
        return logVersion;
    }

    OptionalLong asOfTimestampMillis() {
        return asOfTimestampMillis;
    }

    LakestreamTargetScans scans() {
        return scans;
    }

    @Override
    public String name() {
        return catalogName + "." + table.identifier() + view.suffix();
    }

    @Override
    public StructType schema() {
        return switch (view) {
            case CHANGES -> LakestreamTypes.changesSchema(table.definition());
            case OFFSETS -> LakestreamOffsetsScan.SCHEMA;
            case DATA, LAKE -> LakestreamTypes.sparkSchema(table.definition().schema());
        };
    }

    /** The partitioning by the table's columns; the buckets are not a Spark partitioning (they are the table's). */
    @Override
    public Transform[] partitioning() {
        return view == View.DATA || view == View.LAKE
                ? LakestreamPartitioning.transforms(table.definition())
                : new Transform[0];
    }

    @Override
    public Map<String, String> properties() {
        return LakestreamTableSpecs.sparkProperties(table.lake().properties());
    }

    @Override
    public Set<TableCapability> capabilities() {
        return isWritable()
                ? EnumSet.of(
                        TableCapability.BATCH_READ,
                        TableCapability.MICRO_BATCH_READ,
                        TableCapability.BATCH_WRITE,
                        TableCapability.STREAMING_WRITE,
                        // overwrites need a primary key: the write builder says so for append-only tables
                        TableCapability.TRUNCATE,
                        TableCapability.OVERWRITE_BY_FILTER,
                        TableCapability.OVERWRITE_DYNAMIC)
                : isStreamableView()
                        ? EnumSet.of(TableCapability.BATCH_READ, TableCapability.MICRO_BATCH_READ)
                        : EnumSet.of(TableCapability.BATCH_READ);
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        if (view == View.OFFSETS) {
            return () -> new LakestreamOffsetsScan(this);
        }
        return new LakestreamScanBuilder(this, options, scans::add);
    }

    @Override
    public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        requireWritable();
        return new LakestreamWriteBuilder(this, info);
    }

    /** {@code DELETE FROM}, {@code UPDATE} and {@code MERGE INTO} (on primary-key tables). */
    @Override
    public RowLevelOperationBuilder newRowLevelOperationBuilder(RowLevelOperationInfo info) {
        requireWritable();
        LakestreamRowLevelOperation operation = LakestreamRowLevelOperation.create(this, info);
        return () -> operation;
    }

    final void requireWritable() {
        if (!isWritable()) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    "%s is read-only (a %s); write into %s.%s instead"
                            .formatted(
                                    name(),
                                    view == View.DATA
                                            ? "time-travel read"
                                            : view.name().toLowerCase(Locale.ROOT) + " view",
                                    catalogName,
                                    table.identifier()));
        }
        // on the driver, before any task starts: a lake changed outside Lakestream is not written into
        LakeLayoutValidator.validate(table);
    }

    /** The changelog streams (the table itself too, when writable: see {@link #isWritable}). */
    private boolean isStreamableView() {
        return view == View.CHANGES && logVersion.isEmpty() && asOfTimestampMillis.isEmpty();
    }

    final boolean isWritable() {
        return view == View.DATA && logVersion.isEmpty() && asOfTimestampMillis.isEmpty();
    }

    @Override
    public String toString() {
        return name();
    }
}
