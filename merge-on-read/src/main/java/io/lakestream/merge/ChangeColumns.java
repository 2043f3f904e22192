package io.lakestream.merge;

import io.lakestream.reader.LogBatch;
import io.lakestream.table.TableDefinition;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.IntVector;
import org.apache.arrow.vector.TimeStampMicroTZVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;

/**
 * The system columns of the changes read mode: change type, bucket, (for a partitioned table) partition, offset and
 * commit time of every change. A change is named by its log: {@code (_bucket, _offset)} in a per-bucket log,
 * {@code (_partition, _bucket, _offset)} in a log kept per (partition, bucket), whose offsets restart in every
 * partition (docs/format.md "The log of a partitioned table").
 */
public final class ChangeColumns {
    public static final String CHANGE_TYPE = "_change_type";
    public static final String BUCKET = "_bucket";
    public static final String PARTITION = "_partition";
    public static final String OFFSET = "_offset";
    public static final String COMMIT_TIMESTAMP = "_commit_timestamp";

    private static final Field CHANGE_TYPE_FIELD =
            new Field(CHANGE_TYPE, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null);
    private static final Field BUCKET_FIELD =
            new Field(BUCKET, FieldType.notNullable(new ArrowType.Int(32, true)), null);
    /** NULL for a change of a per-bucket log (a partitioned table created before partitioned logs were the default). */
    private static final Field PARTITION_FIELD =
            new Field(PARTITION, FieldType.nullable(ArrowType.Utf8.INSTANCE), null);

    private static final Field OFFSET_FIELD =
            new Field(OFFSET, FieldType.notNullable(new ArrowType.Int(64, true)), null);
    private static final Field COMMIT_TIMESTAMP_FIELD = new Field(
            COMMIT_TIMESTAMP, FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")), null);

    /** The change columns of an unpartitioned table (unchanged since before partitioned tables). */
    public static final List<Field> FIELDS =
            List.of(CHANGE_TYPE_FIELD, BUCKET_FIELD, OFFSET_FIELD, COMMIT_TIMESTAMP_FIELD);

    /** The change columns of a partitioned table: {@code _partition} after {@code _bucket}. */
    public static final List<Field> PARTITIONED_FIELDS =
            List.of(CHANGE_TYPE_FIELD, BUCKET_FIELD, PARTITION_FIELD, OFFSET_FIELD, COMMIT_TIMESTAMP_FIELD);

    private ChangeColumns() {}

    /**
     * Whether the table's changes carry {@code _partition}: every table partitioned by the user does (its spec 0
     * never changes, so neither does the set of columns); unpartitioned tables keep the four columns they had.
     */
    public static boolean hasPartition(TableDefinition definition) {
        return definition.isPartitioned();
    }

    /** The change columns of the table, in output order. */
    public static List<Field> fields(TableDefinition definition) {
        return hasPartition(definition) ? PARTITIONED_FIELDS : FIELDS;
    }

    /** The names of the table's change columns, in output order. */
    public static List<String> names(TableDefinition definition) {
        return fields(definition).stream().map(Field::getName).toList();
    }

    /**
     * The change columns of the selected rows of {@code batch}.
     *
     * @param withPartition whether the table's change columns have {@code _partition} ({@link #hasPartition})
     * @param partitionPath the path of the batch's partition; empty in a per-bucket log ({@code _partition} is NULL)
     */
    static List<FieldVector> build(
            LogBatch batch,
            Selection selection,
            boolean withPartition,
            Optional<String> partitionPath,
            BufferAllocator allocator) {
        VarCharVector changeType = (VarCharVector) CHANGE_TYPE_FIELD.createVector(allocator);
        IntVector bucket = (IntVector) BUCKET_FIELD.createVector(allocator);
        BigIntVector offset = (BigIntVector) OFFSET_FIELD.createVector(allocator);
        TimeStampMicroTZVector commitTime = (TimeStampMicroTZVector) COMMIT_TIMESTAMP_FIELD.createVector(allocator);
        int rows = selection.size();
        changeType.allocateNew(rows);
        bucket.allocateNew(rows);
        offset.allocateNew(rows);
        commitTime.allocateNew(rows);
        for (int i = 0; i < rows; i++) {
            int row = selection.row(i);
            changeType.setSafe(
                    i, batch.changeType(row).name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
            bucket.set(i, batch.bucket());
            offset.set(i, batch.firstOffset() + row);
            commitTime.set(i, batch.committedAtMillis() * 1000);
        }
        List<FieldVector> vectors = new ArrayList<>(List.of(changeType, bucket));
        if (withPartition) {
            vectors.add(partitionVector(partitionPath, rows, allocator));
        }
        vectors.add(offset);
        vectors.add(commitTime);
        for (FieldVector vector : vectors) {
            vector.setValueCount(rows);
        }
        return List.copyOf(vectors);
    }

    private static VarCharVector partitionVector(Optional<String> path, int rows, BufferAllocator allocator) {
        VarCharVector vector = (VarCharVector) PARTITION_FIELD.createVector(allocator);
        vector.allocateNew(rows);
        // allocateNew leaves every value null: a per-bucket log's changes keep it so
        if (path.isPresent()) {
            byte[] bytes = path.get().getBytes(StandardCharsets.UTF_8);
            for (int i = 0; i < rows; i++) {
                vector.setSafe(i, bytes);
            }
        }
        return vector;
    }
}
