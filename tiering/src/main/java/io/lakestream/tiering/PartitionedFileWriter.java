package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import io.lakestream.tiering.parquet.TieredFileWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.StructLike;

/**
 * Writes each row into its lake partition (a table partitioned by the user's columns): one writer per partition
 * the task's rows reach, opened on the first row of it. Either writer kind (columnar or Iceberg's row writer)
 * works underneath, since it only sees positions of its own partition's rows.
 *
 * @param <F> the kind of file written
 */
final class PartitionedFileWriter<F> implements TieredFileWriter<F> {
    private final RowPartitions partitions;
    private final Function<StructLike, TieredFileWriter<F>> opener;
    private final List<TieredFileWriter<F>> writers = new ArrayList<>();
    private int[] ordinals = new int[0];
    private int[] positions = new int[0];

    PartitionedFileWriter(RowPartitions partitions, Function<StructLike, TieredFileWriter<F>> opener) {
        this.partitions = requireNonNull(partitions, "partitions is null");
        this.opener = requireNonNull(opener, "opener is null");
    }

    @Override
    public void write(VectorSchemaRoot batch, int[] rows, int from, int to) {
        int count = to - from;
        if (ordinals.length < count) {
            ordinals = new int[count];
            positions = new int[count];
        }
        int maxOrdinal = -1;
        for (int i = 0; i < count; i++) {
            int ordinal = partitions.ordinal(batch, rows == null ? from + i : rows[from + i]);
            ordinals[i] = ordinal;
            maxOrdinal = Math.max(maxOrdinal, ordinal);
        }
        // one pass per partition of the batch: a tail usually reaches few partitions (the newest days)
        for (int ordinal = 0; ordinal <= maxOrdinal; ordinal++) {
            int selected = 0;
            for (int i = 0; i < count; i++) {
                if (ordinals[i] == ordinal) {
                    positions[selected++] = rows == null ? from + i : rows[from + i];
                }
            }
            if (selected > 0) {
                writer(ordinal).write(batch, positions, 0, selected);
            }
        }
    }

    private TieredFileWriter<F> writer(int ordinal) {
        while (writers.size() <= ordinal) {
            writers.add(null);
        }
        TieredFileWriter<F> writer = writers.get(ordinal);
        if (writer == null) {
            writer = opener.apply(partitions.partition(ordinal));
            writers.set(ordinal, writer);
        }
        return writer;
    }

    @Override
    public List<F> finish() {
        List<F> files = new ArrayList<>();
        for (TieredFileWriter<F> writer : writers) {
            if (writer != null) {
                files.addAll(writer.finish());
            }
        }
        return files;
    }

    @Override
    public void abort() {
        RuntimeException failure = null;
        for (TieredFileWriter<F> writer : writers) {
            if (writer == null) {
                continue;
            }
            try {
                writer.abort();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public List<String> locations() {
        List<String> locations = new ArrayList<>();
        for (TieredFileWriter<F> writer : writers) {
            if (writer != null) {
                locations.addAll(writer.locations());
            }
        }
        return locations;
    }
}
