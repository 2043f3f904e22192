package io.lakestream.merge;

import io.lakestream.reader.LogBatch;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
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

/** The system columns of the changes read mode: change type, bucket, offset and commit time of every change. */
public final class ChangeColumns {
    public static final String CHANGE_TYPE = "_change_type";
    public static final String BUCKET = "_bucket";
    public static final String OFFSET = "_offset";
    public static final String COMMIT_TIMESTAMP = "_commit_timestamp";

    public static final List<Field> FIELDS = List.of(
            new Field(CHANGE_TYPE, FieldType.notNullable(ArrowType.Utf8.INSTANCE), null),
            new Field(BUCKET, FieldType.notNullable(new ArrowType.Int(32, true)), null),
            new Field(OFFSET, FieldType.notNullable(new ArrowType.Int(64, true)), null),
            new Field(
                    COMMIT_TIMESTAMP,
                    FieldType.notNullable(new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC")),
                    null));

    private ChangeColumns() {}

    static List<FieldVector> build(LogBatch batch, Selection selection, BufferAllocator allocator) {
        VarCharVector changeType = (VarCharVector) FIELDS.get(0).createVector(allocator);
        IntVector bucket = (IntVector) FIELDS.get(1).createVector(allocator);
        BigIntVector offset = (BigIntVector) FIELDS.get(2).createVector(allocator);
        TimeStampMicroTZVector commitTime =
                (TimeStampMicroTZVector) FIELDS.get(3).createVector(allocator);
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
        for (FieldVector vector : List.<FieldVector>of(changeType, bucket, offset, commitTime)) {
            vector.setValueCount(rows);
        }
        return List.of(changeType, bucket, offset, commitTime);
    }
}
