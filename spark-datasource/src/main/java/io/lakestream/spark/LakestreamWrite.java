package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_ROW;
import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.iceberg.types.Types;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.Write;
import org.apache.spark.sql.connector.write.streaming.StreamingWrite;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * A write into a table's log ({@code INSERT INTO}, {@code writeTo(...).append()}, or an overwrite):
 * tasks stage segments, the driver publishes them as one log commit. On a primary-key table every
 * row is an upsert; an overwrite adds the deletes of the rows it replaces to the same commit.
 *
 * <p>An append whose statement also read the table it writes (Spark built a scan of the same loaded table: a
 * {@code MERGE} with only {@code NOT MATCHED} clauses, which Spark runs as an append of the rows its left anti join
 * against the table leaves) was planned from that read: it commits with snapshot isolation from the version the
 * scan read, as a row-level operation does. An append that reads nothing of the table is blind, last writer wins.
 */
final class LakestreamWrite implements Write {
    private final LakestreamTableRef ref;
    private final LakestreamTable table;
    private final String queryId;
    private final StructType inputSchema;
    private final Optional<LakestreamOverwrite> overwrite;
    private final LakestreamTargetScans scans;

    LakestreamWrite(
            LakestreamTableRef ref,
            LakestreamTable table,
            LogicalWriteInfo info,
            Optional<LakestreamOverwrite> overwrite,
            LakestreamTargetScans scans) {
        this.ref = requireNonNull(ref, "ref is null");
        this.table = requireNonNull(table, "table is null");
        this.queryId = requireNonNull(info.queryId(), "queryId is null");
        this.inputSchema = requireNonNull(info.schema(), "schema is null");
        this.overwrite = requireNonNull(overwrite, "overwrite is null");
        this.scans = requireNonNull(scans, "scans is null");
    }

    // Spark lines a batch query up with the table columns before it gets here; this guards the positional conversion.
    private static void checkSchema(LakestreamTable table, StructType schema) {
        List<Types.NestedField> columns = table.definition().schema().columns();
        StructField[] fields = schema.fields();
        boolean matches = fields.length == columns.size();
        for (int i = 0; matches && i < fields.length; i++) {
            matches = fields[i].name().equalsIgnoreCase(columns.get(i).name());
        }
        if (!matches) {
            throw new LakestreamException(
                    INVALID_ROW,
                    "A write into %s must have the table's columns %s in order, but has %s"
                            .formatted(
                                    table,
                                    columns.stream()
                                            .map(Types.NestedField::name)
                                            .toList(),
                                    List.of(schema.fieldNames())));
        }
    }

    @Override
    public String description() {
        if (overwrite.isPresent()) {
            return "overwrite %s (%s)".formatted(table, overwrite.get().description());
        }
        return (table.definition().hasPrimaryKey() ? "upsert into " : "append to ") + table;
    }

    @Override
    public BatchWrite toBatch() {
        checkSchema(table, inputSchema);
        return new LakestreamBatchWrite(ref, table, queryId, overwrite, readOfTable());
    }

    /**
     * What the statement read of the table, for the commit: nothing (a blind write) unless Spark built a scan of it.
     * Spark builds scans while it optimizes the statement, before it asks for the batch write.
     */
    private Supplier<Optional<LakestreamRowLevelRead>> readOfTable() {
        if (scans.isEmpty() || overwrite.isPresent()) {
            // an overwrite has its own, stricter check: nothing in the log may have changed since it pinned it
            return Optional::empty;
        }
        // a scan never planned read no row: then the write read nothing after this version
        long startVersion = table.log().latestSnapshot().version();
        return () -> Optional.of(scans.read(startVersion));
    }

    /**
     * A streaming write: each micro-batch is one log commit, applied once. Spark does not line a stream up
     * with the table's columns, so they are matched by name here, before the first batch writes anything.
     * Complete output mode (which Spark asks for as a truncate) would replace the table at every batch: refused.
     */
    @Override
    public StreamingWrite toStreaming() {
        if (overwrite.isPresent()) {
            throw new LakestreamException(
                    UNSUPPORTED_OPERATION,
                    ("A streaming write into %s in complete output mode is not supported: Lakestream does not replace a "
                                    + "table at every micro-batch. Use outputMode(\"append\") or, for a primary-key table "
                                    + "(whose rows are upserts by key), outputMode(\"update\")")
                            .formatted(table));
        }
        return new LakestreamStreamingWrite(ref, table, queryId, LakestreamSinkInput.check(table, inputSchema));
    }
}
