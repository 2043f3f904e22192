package io.lakestream.spark;

import static java.util.Objects.requireNonNull;

import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Type;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.expressions.UnsafeRow;
import org.apache.spark.sql.connector.metric.CustomTaskMetric;
import org.apache.spark.sql.connector.read.PartitionReader;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.vectorized.ColumnarBatch;

/**
 * Reads a log range of one bucket per key ({@link LakestreamKeyedChangesPartition}): all its changes
 * first (a micro-batch's range, bounded by the stream's admission limits), then, for the changelog, the
 * rows their keys held where the range starts (the bucket's union read at that log version, filtered to
 * those keys), and returns the rows {@link ChangelogRows} derives. Holds the range's changes and the
 * replaced rows in memory.
 */
final class KeyedChangesReader implements PartitionReader<InternalRow> {
    /** Above this many keys the state read is not filtered by key (the filter would cost more than it prunes). */
    static final int MAX_FILTER_KEYS = 10_000;

    private final LakestreamStreamReaderFactory factory;
    private final LakestreamKeyedChangesPartition partition;
    private Iterator<InternalRow> rows;
    private InternalRow current;
    private long returnedValues;
    private long logSegments;

    KeyedChangesReader(LakestreamStreamReaderFactory factory, LakestreamKeyedChangesPartition partition) {
        this.factory = requireNonNull(factory, "factory is null");
        this.partition = requireNonNull(partition, "partition is null");
    }

    @Override
    public boolean next() throws IOException {
        if (rows == null) {
            rows = read().iterator();
        }
        if (!rows.hasNext()) {
            return false;
        }
        current = rows.next();
        returnedValues += current.numFields();
        return true;
    }

    @Override
    public CustomTaskMetric[] currentMetricsValues() {
        return LakestreamMetrics.derived(returnedValues, logSegments);
    }

    @Override
    public InternalRow get() {
        return current;
    }

    private List<InternalRow> read() throws IOException {
        LakestreamReaderFactory rowRead = factory.rows();
        LakestreamTable table = rowRead.table().load();
        List<String> columns = rowRead.columns();
        StructField[] fields = rowRead.readSchema().fields();
        DataType[] types = new DataType[fields.length];
        for (int i = 0; i < fields.length; i++) {
            types[i] = fields[i].dataType();
        }
        List<String> primaryKey = table.definition().primaryKey();
        int[] keyColumns = primaryKey.stream().mapToInt(columns::indexOf).toArray();
        ChangelogRows changelog = new ChangelogRows(
                LakestreamTypes.hasPartitionColumn(factory.changes().readSchema()), types, keyColumns);

        List<InternalRow> changes = new ArrayList<>();
        try (LakestreamPartitionReader reader = new LakestreamPartitionReader(
                factory.changes(), partition.changes().split())) {
            logSegments += reader.logSegments();
            while (reader.next()) {
                Iterator<InternalRow> batch = reader.get().rowIterator();
                while (batch.hasNext()) {
                    changes.add(batch.next().copy());
                }
            }
        }
        if (factory.output() == StreamOutput.UPSERT) {
            return changelog.lastPerKey(changes);
        }
        Map<UnsafeRow, Object[]> before = new HashMap<>();
        if (!partition.stateBefore().isEmpty() && !changes.isEmpty()) {
            Set<UnsafeRow> keys = new HashSet<>();
            for (InternalRow change : changes) {
                keys.add(changelog.key(change, changelog.changeColumns()));
            }
            Expression filter = keyFilter(
                    table.definition().schema(), primaryKey, changes, types, keyColumns, changelog.changeColumns());
            LakestreamReaderFactory stateRead = new LakestreamReaderFactory(
                    rowRead.table(),
                    columns,
                    rowRead.readSchema(),
                    ExpressionParser.toJson(filter),
                    rowRead.maxIndexRows(),
                    -1,
                    LakestreamReaderFactory.NO_LAKE_PRUNING_JSON);
            for (LakestreamInputPartition state : partition.stateBefore()) {
                try (LakestreamPartitionReader reader = new LakestreamPartitionReader(stateRead, state.split())) {
                    logSegments += reader.logSegments();
                    while (reader.next()) {
                        collect(reader.get(), changelog, keys, before);
                    }
                }
            }
        }
        return changelog.changelog(changes, before, partition.commitEnds());
    }

    private static void collect(
            ColumnarBatch batch, ChangelogRows changelog, Set<UnsafeRow> keys, Map<UnsafeRow, Object[]> before) {
        Iterator<InternalRow> rows = batch.rowIterator();
        while (rows.hasNext()) {
            InternalRow row = rows.next();
            UnsafeRow key = changelog.key(row, 0);
            if (keys.contains(key)) {
                before.put(key, changelog.userValues(row, 0));
            }
        }
    }

    /**
     * {@code key IN (...)} for a single key column of type int, long or string with not too many keys, so
     * that the state read prunes row groups and skips other rows early; otherwise no filter (the rows of
     * other keys are dropped after the read).
     */
    private static Expression keyFilter(
            Schema schema,
            List<String> primaryKey,
            List<InternalRow> changes,
            DataType[] types,
            int[] keyColumns,
            int changeColumns) {
        if (primaryKey.size() != 1) {
            return Expressions.alwaysTrue();
        }
        Type.TypeID type = schema.findField(primaryKey.getFirst()).type().typeId();
        if (type != Type.TypeID.INTEGER && type != Type.TypeID.LONG && type != Type.TypeID.STRING) {
            return Expressions.alwaysTrue();
        }
        int column = changeColumns + keyColumns[0];
        Set<Object> values = new HashSet<>();
        for (InternalRow change : changes) {
            if (!change.isNullAt(column)) {
                Object value = change.get(column, types[keyColumns[0]]);
                values.add(type == Type.TypeID.STRING ? value.toString() : value);
            }
        }
        if (values.isEmpty() || values.size() > MAX_FILTER_KEYS) {
            return Expressions.alwaysTrue();
        }
        return Expressions.in(primaryKey.getFirst(), values);
    }

    @Override
    public void close() {}
}
