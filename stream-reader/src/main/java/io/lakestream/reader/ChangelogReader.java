package io.lakestream.reader;

import static java.util.Objects.requireNonNull;

import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StreamLog;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The changelog of one bucket's offset range as rows: change type, bucket, offset, timestamp and
 * the row as an Iceberg {@link Record}. The row path for tiering, tests and tools; engines read
 * {@link LogBatch}es.
 */
public final class ChangelogReader implements Iterator<ChangeRecord>, AutoCloseable {
    private final LogRangeReader batches;
    private final Schema projectedSchema;
    private final ArrowValueReader[] valueReaders;
    private LogBatch batch;
    private int row;

    public ChangelogReader(
            StreamLog log,
            LogSnapshot snapshot,
            int bucket,
            long from,
            long to,
            Schema projectedSchema,
            BufferAllocator allocator) {
        this.projectedSchema = requireNonNull(projectedSchema, "projectedSchema is null");
        List<Types.NestedField> columns = projectedSchema.columns();
        this.batches = new LogRangeReader(log, snapshot, bucket, from, to, columns, allocator);
        this.valueReaders = columns.stream()
                .map(column -> ArrowValueReader.forType(column.type()))
                .toArray(ArrowValueReader[]::new);
    }

    @Override
    public boolean hasNext() {
        while (batch == null || row >= batch.rowCount()) {
            if (batch != null) {
                batch.close();
                batch = null;
            }
            if (!batches.hasNext()) {
                return false;
            }
            batch = batches.next();
            row = 0;
        }
        return true;
    }

    @Override
    public ChangeRecord next() {
        if (!hasNext()) {
            throw new NoSuchElementException();
        }
        Record record = GenericRecord.create(projectedSchema);
        for (int i = 0; i < valueReaders.length; i++) {
            record.set(i, valueReaders[i].read(batch.column(i), row));
        }
        ChangeRecord change = new ChangeRecord(
                batch.changeType(row), batch.bucket(), batch.firstOffset() + row, batch.timestampMicros(row), record);
        row++;
        return change;
    }

    @Override
    public void close() {
        if (batch != null) {
            batch.close();
            batch = null;
        }
        batches.close();
    }
}
