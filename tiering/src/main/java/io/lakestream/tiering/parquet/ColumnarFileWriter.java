package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.io.OutputFileFactory;

/**
 * Writes a task's rows column-at-a-time ({@link ColumnarParquetFile}) into files that roll over at the
 * target file size, and describes them as Iceberg's own data and equality delete writers do (path,
 * partition, size, metrics, split offsets; equality field ids and the file's {@code delete-type} and
 * {@code delete-field-ids} metadata).
 *
 * @param <F> data or delete files
 */
public final class ColumnarFileWriter<F> implements TieredFileWriter<F> {
    /** Rows written at most between two file size checks. */
    private static final int CHECK_ROWS = 1024;

    /** Where a task's files go and how they are laid out. */
    public record Target(
            OutputFileFactory files,
            ReusedFileBuilders builders,
            ReusePool<GrowableBytes> scratch,
            StructLike partition,
            Map<Integer, Integer> vectorPositions,
            int bucket,
            ColumnarParquetSettings settings,
            MetricsConfig metricsConfig,
            long targetFileSizeBytes) {
        public Target {
            requireNonNull(files, "files is null");
            requireNonNull(builders, "builders is null");
            requireNonNull(scratch, "scratch is null");
            vectorPositions = Map.copyOf(vectorPositions);
            requireNonNull(settings, "settings is null");
            requireNonNull(metricsConfig, "metricsConfig is null");
        }
    }

    private final Target target;
    private final ColumnarFileLayout layout;
    private final OptionalInt bucketFieldId;
    private final Map<String, String> metadata;
    private final Function<ColumnarParquetFile, F> describe;
    private final List<F> written = new ArrayList<>();
    private final List<String> locations = new ArrayList<>();
    private ColumnarParquetFile current;

    private ColumnarFileWriter(
            Target target,
            ColumnarFileLayout layout,
            OptionalInt bucketFieldId,
            Map<String, String> metadata,
            Function<ColumnarParquetFile, F> describe) {
        this.target = requireNonNull(target, "target is null");
        this.layout = requireNonNull(layout, "layout is null");
        this.bucketFieldId = requireNonNull(bucketFieldId, "bucketFieldId is null");
        this.metadata = Map.copyOf(metadata);
        this.describe = requireNonNull(describe, "describe is null");
    }

    /** Data files of the lake's schema; {@code bucketFieldId} is the hidden bucket column, if any. */
    public static ColumnarFileWriter<DataFile> data(
            Target target, ColumnarFileLayout layout, OptionalInt bucketFieldId) {
        return new ColumnarFileWriter<>(
                target,
                layout,
                bucketFieldId,
                Map.of(),
                file -> target.builders()
                        .dataFile(builder -> builder.withFormat(FileFormat.PARQUET)
                                .withPath(file.location())
                                .withPartition(target.partition())
                                .withFileSizeInBytes(file.fileLength())
                                .withMetrics(file.metrics(target.metricsConfig()))
                                .withSplitOffsets(file.splitOffsets())));
    }

    /** Equality delete files of the key columns {@code keyLayout}. */
    public static ColumnarFileWriter<DeleteFile> equalityDeletes(Target target, ColumnarFileLayout keyLayout) {
        int[] equalityFieldIds = keyLayout.schema().columns().stream()
                .mapToInt(column -> column.fieldId())
                .toArray();
        Map<String, String> metadata = Map.of(
                "delete-type",
                "equality",
                "delete-field-ids",
                IntStream.of(equalityFieldIds).mapToObj(Integer::toString).collect(Collectors.joining(", ")));
        return new ColumnarFileWriter<>(
                target,
                keyLayout,
                OptionalInt.empty(),
                metadata,
                file -> target.builders()
                        .deleteFile(builder -> builder.ofEqualityDeletes(equalityFieldIds)
                                .withFormat(FileFormat.PARQUET)
                                .withPath(file.location())
                                .withPartition(target.partition())
                                .withFileSizeInBytes(file.fileLength())
                                .withMetrics(file.metrics(target.metricsConfig()))
                                .withSplitOffsets(file.splitOffsets())));
    }

    @Override
    public void write(VectorSchemaRoot batch, int[] rows, int from, int to) {
        List<FieldVector> vectors = batch.getFieldVectors();
        for (int start = from; start < to; start += CHECK_ROWS) {
            int end = Math.min(to, start + CHECK_ROWS);
            if (current == null) {
                current = newFile();
            }
            current.write(vectors, rows, start, end);
            if (current.length() >= target.targetFileSizeBytes()) {
                closeCurrent();
            }
        }
    }

    private ColumnarParquetFile newFile() {
        PartitionSpec spec = target.builders().spec();
        EncryptedOutputFile output = spec.isUnpartitioned() || target.partition() == null
                ? target.files().newOutputFile()
                : target.files().newOutputFile(spec, target.partition());
        locations.add(output.encryptingOutputFile().location());
        return new ColumnarParquetFile(
                output.encryptingOutputFile(),
                layout,
                target.vectorPositions(),
                bucketFieldId,
                target.bucket(),
                target.settings(),
                target.scratch(),
                metadata);
    }

    private void closeCurrent() {
        current.close(); // if this fails, abort() closes the file's stream
        ColumnarParquetFile file = current;
        current = null;
        written.add(describe.apply(file));
    }

    @Override
    public List<F> finish() {
        if (current != null) {
            closeCurrent();
        }
        return List.copyOf(written);
    }

    @Override
    public void abort() {
        if (current != null) {
            current.abort();
            current = null;
        }
    }

    @Override
    public List<String> locations() {
        return List.copyOf(locations);
    }
}
