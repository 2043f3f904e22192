package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.io.FileWriter;

/**
 * Writes rows one at a time through Iceberg's own Parquet writers ({@link ArrowFileWriterFactory}): for
 * tables whose column types or writer properties the columnar writer does not handle.
 *
 * @param <F> the kind of file written
 * @param <R> the result of Iceberg's writer
 */
public final class RowFileWriter<F extends ContentFile<F>, R> implements TieredFileWriter<F> {
    private final FileWriter<ArrowRow, R> writer;
    private final Function<R, List<F>> files;
    private final Consumer<List<String>> forceWritten;
    private final ArrowRow row;
    private List<F> written;

    /**
     * @param files the files of the writer's result
     * @param forceWritten makes the closed files durable ({@link ArrowFileWriterFactory#forceWritten})
     */
    public RowFileWriter(
            FileWriter<ArrowRow, R> writer,
            Function<R, List<F>> files,
            Consumer<List<String>> forceWritten,
            int bucket) {
        this.writer = requireNonNull(writer, "writer is null");
        this.files = requireNonNull(files, "files is null");
        this.forceWritten = requireNonNull(forceWritten, "forceWritten is null");
        this.row = new ArrowRow(bucket);
    }

    @Override
    public void write(VectorSchemaRoot batch, int[] rows, int from, int to) {
        row.setBatch(batch);
        for (int i = from; i < to; i++) {
            row.setIndex(rows == null ? i : rows[i]);
            writer.write(row);
        }
    }

    private List<F> close() {
        if (written == null) {
            try {
                writer.close();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            written = List.copyOf(files.apply(writer.result()));
        }
        return written;
    }

    @Override
    public List<F> finish() {
        List<F> files = close();
        forceWritten.accept(locations());
        return files;
    }

    @Override
    public void abort() {
        close(); // Iceberg's writer completes its open file; the caller deletes it
    }

    @Override
    public List<String> locations() {
        return written == null
                ? List.of()
                : written.stream().map(ContentFile::location).toList();
    }
}
