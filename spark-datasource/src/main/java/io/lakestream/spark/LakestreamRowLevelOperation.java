package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.ReadMode;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.sql.connector.expressions.Expressions;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.read.ScanBuilder;
import org.apache.spark.sql.connector.write.DeltaBatchWrite;
import org.apache.spark.sql.connector.write.DeltaWrite;
import org.apache.spark.sql.connector.write.DeltaWriteBuilder;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.RowLevelOperation;
import org.apache.spark.sql.connector.write.RowLevelOperationInfo;
import org.apache.spark.sql.connector.write.SupportsDelta;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * {@code DELETE}, {@code UPDATE} and {@code MERGE INTO} on a primary-key table, as a delta operation:
 * Spark scans the table with a union read (always the union, whatever read mode is configured),
 * finds the affected rows (any predicate or join Spark can evaluate), and hands the tasks their
 * primary keys (the row id) with the new rows; the tasks stage delete and upsert changes, and the
 * driver publishes all of them as one log commit keyed by the query id, like an insert.
 *
 * <p>Snapshot isolation: the operation remembers the scan Spark built for it, and the commit goes
 * through only if no change committed after the log version that scan read touches a key the
 * operation writes or a row the scan's pushed filter may match ({@code WriteConflictCheck}).
 */
final class LakestreamRowLevelOperation implements SupportsDelta {
    private final LakestreamTable table;
    private final Command command;
    /** The log version when the operation was created: what it read if Spark read no rows of the table. */
    private final long createdAtVersion;
    /** The scans Spark built for the operation (they read the rows the operation changes). */
    private final LakestreamTargetScans scans = new LakestreamTargetScans();

    private LakestreamRowLevelOperation(LakestreamTable table, Command command) {
        this.table = requireNonNull(table, "table is null");
        this.command = requireNonNull(command, "command is null");
        this.createdAtVersion = table.table().log().latestSnapshot().version();
    }

    /** The operation, or a clear error for what the table does not support. */
    static LakestreamRowLevelOperation create(LakestreamTable table, RowLevelOperationInfo info) {
        RowLevelOperation.Command command = info.command();
        io.lakestream.table.LakestreamTable lakestream = table.table();
        if (!lakestream.definition().hasPrimaryKey()) {
            if (command == Command.DELETE && lakestream.log().isPartitionedLog()) {
                // Spark asks for the row-level operation before it offers the DELETE to canDeleteWhere: a delete of
                // whole partitions of such a table works (LakestreamPartitionDeletes); any other fails when planned
                return new LakestreamRowLevelOperation(table, command);
            }
            throw appendOnly(table, command);
        }
        return new LakestreamRowLevelOperation(table, command);
    }

    private static LakestreamException appendOnly(LakestreamTable table, Command command) {
        return new LakestreamException(
                UNSUPPORTED_OPERATION,
                "%s on %s is not supported: it is an append-only table (no primary key), whose log only takes inserts; "
                                .formatted(command, table.name())
                        + "deletes and updates need a table created with TBLPROPERTIES ('primary-key'='...')"
                        + (table.table().log().isPartitionedLog()
                                ? " (a DELETE whose condition selects whole partitions works on this table)"
                                : ""));
    }

    private void requirePrimaryKey() {
        if (!table.table().definition().hasPrimaryKey()) {
            throw appendOnly(table, command);
        }
    }

    @Override
    public Command command() {
        return command;
    }

    @Override
    public String description() {
        return command.name().toLowerCase(Locale.ROOT) + " " + table.name();
    }

    @Override
    public ScanBuilder newScanBuilder(CaseInsensitiveStringMap options) {
        requirePrimaryKey();
        Map<String, String> union = new HashMap<>(options.asCaseSensitiveMap());
        union.put(LakestreamReadConf.READ_MODE, ReadMode.UNION.name().toLowerCase(Locale.ROOT));
        return new LakestreamScanBuilder(table, new CaseInsensitiveStringMap(union), scans::add);
    }

    /**
     * What the operation read: its scan's log version and filter (asked at commit, once the scan ran). Without a
     * scan (Spark needed no row of the table) nothing is known of a condition; a scan that never ran read nothing:
     * checking from the operation's start only adds conflicts.
     */
    LakestreamRowLevelRead read() {
        return scans.read(createdAtVersion);
    }

    @Override
    public NamedReference[] rowId() {
        if (!table.table().definition().hasPrimaryKey()) {
            // never read: the row-level path of an append-only table fails when its scan is built
            return new NamedReference[] {
                Expressions.column(
                        table.table().definition().schema().columns().getFirst().name())
            };
        }
        return table.table().definition().primaryKey().stream()
                .map(Expressions::column)
                .toArray(NamedReference[]::new);
    }

    @Override
    public DeltaWriteBuilder newWriteBuilder(LogicalWriteInfo info) {
        requirePrimaryKey();
        String queryId = requireNonNull(info.queryId(), "queryId is null");
        return new DeltaWriteBuilder() {
            @Override
            public DeltaWrite build() {
                return new DeltaWrite() {
                    @Override
                    public String description() {
                        return "delete and upsert changes into " + table.name();
                    }

                    @Override
                    public DeltaBatchWrite toBatch() {
                        return new LakestreamDeltaBatchWrite(
                                table.ref(),
                                new LakestreamBatchWrite(
                                        table.ref(),
                                        table.table(),
                                        queryId,
                                        Optional.empty(),
                                        () -> Optional.of(read())));
                    }
                };
            }
        };
    }
}
