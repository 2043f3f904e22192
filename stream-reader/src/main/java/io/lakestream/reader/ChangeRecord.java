package io.lakestream.reader;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.ChangeType;
import org.apache.iceberg.data.Record;

/**
 * One change of the changelog.
 *
 * @param changeType insert, upsert or delete
 * @param bucket the bucket
 * @param offset offset in the bucket
 * @param timestampMicros when the writer appended it
 * @param row the row (for a delete, only the key columns are set)
 */
public record ChangeRecord(ChangeType changeType, int bucket, long offset, long timestampMicros, Record row) {
    public ChangeRecord {
        requireNonNull(changeType, "changeType is null");
        requireNonNull(row, "row is null");
    }
}
