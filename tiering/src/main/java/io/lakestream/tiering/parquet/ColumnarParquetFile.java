package io.lakestream.tiering.parquet;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import org.apache.arrow.vector.FieldVector;
import org.apache.iceberg.FieldMetrics;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.MetricsConfig;
import org.apache.iceberg.Schema;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.parquet.ParquetUtil;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.column.ParquetProperties;
import org.apache.parquet.hadoop.ParquetFileWriter;
import org.apache.parquet.hadoop.metadata.ParquetMetadata;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.PrimitiveType.PrimitiveTypeName;

/**
 * One Parquet file written column-at-a-time from Arrow vectors ({@link ColumnEncoder} per column) with
 * parquet-mr's low-level {@link ParquetFileWriter}, laid out as Iceberg's Parquet writer lays out a file for
 * the same schema and settings: the Parquet schema with field ids ({@code ParquetSchemaUtil.convert}), the
 * {@code iceberg.schema} key-value metadata, data pages v1, page and column chunk statistics, column and
 * offset indexes. The file's Iceberg metrics are computed by Iceberg itself from the footer (and, for float
 * and double columns, from value counters as Iceberg's writers keep them).
 */
public final class ColumnarParquetFile {
    /** Rows appended at most between two row group size checks. */
    private static final int CHECK_ROWS = 1024;

    private final OutputFile output;
    private final MessageType parquetSchema;
    private final List<ColumnEncoder<?>> encoders = new ArrayList<>();
    /** Per encoder: the position of its vector in the batches, or -1 for the constant bucket column. */
    private final int[] vectorPositions;

    private final Map<String, String> metadata;
    private final long rowGroupSizeBytes;
    private final PageCompressor compressor;
    private final ParquetFileWriter writer;
    private long rowGroupRows;
    private long rowCount;
    private ParquetMetadata footer;
    private long length;

    /**
     * @param layout the file's columns (flat, of types {@link #supports} accepts)
     * @param vectorPositions field id → position of the column's vector in the batches written
     * @param bucketFieldId the column whose value is {@code bucket} in every row
     * @param extraMetadata key-value metadata besides the Iceberg schema
     */
    ColumnarParquetFile(
            OutputFile output,
            ColumnarFileLayout layout,
            Map<Integer, Integer> vectorPositions,
            OptionalInt bucketFieldId,
            int bucket,
            ColumnarParquetSettings settings,
            ReusePool<GrowableBytes> scratch,
            Map<String, String> extraMetadata) {
        this.output = requireNonNull(output, "output is null");
        Schema fileSchema = layout.schema();
        this.parquetSchema = layout.parquetSchema();
        this.rowGroupSizeBytes = settings.rowGroupSizeBytes();
        this.compressor = new PageCompressor(settings, settings.pageSizeBytes());
        List<ColumnDescriptor> descriptors = parquetSchema.getColumns();
        this.vectorPositions = new int[descriptors.size()];
        for (int i = 0; i < descriptors.size(); i++) {
            ColumnDescriptor descriptor = descriptors.get(i);
            Types.NestedField field =
                    fileSchema.findField(descriptor.getPrimitiveType().getId().intValue());
            boolean isBucket = bucketFieldId.isPresent() && bucketFieldId.getAsInt() == field.fieldId();
            this.vectorPositions[i] = isBucket ? -1 : vectorPositions.get(field.fieldId());
            encoders.add(encoder(
                    descriptor,
                    field,
                    settings,
                    compressor,
                    scratch,
                    isBucket ? OptionalInt.of(bucket) : OptionalInt.empty()));
        }
        Map<String, String> allMetadata = new LinkedHashMap<>(extraMetadata);
        allMetadata.put("iceberg.schema", layout.schemaJson());
        this.metadata = Map.copyOf(allMetadata);
        try {
            this.writer = new ParquetFileWriter(
                    new ParquetOutput(output),
                    parquetSchema,
                    ParquetFileWriter.Mode.OVERWRITE,
                    settings.rowGroupSizeBytes(),
                    0,
                    ParquetProperties.DEFAULT_COLUMN_INDEX_TRUNCATE_LENGTH,
                    ParquetProperties.DEFAULT_STATISTICS_TRUNCATE_LENGTH,
                    ParquetProperties.DEFAULT_PAGE_WRITE_CHECKSUM_ENABLED);
            writer.start();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Whether the file can hold {@code type} (otherwise Iceberg's own writer writes the table's files). */
    public static boolean supports(Type type) {
        return switch (type.typeId()) {
            case INTEGER, DATE, LONG, TIME, TIMESTAMP, FLOAT, DOUBLE, STRING, BINARY -> true;
            case DECIMAL -> ((Types.DecimalType) type).precision() <= 18;
            default -> false;
        };
    }

    private static ColumnEncoder<?> encoder(
            ColumnDescriptor descriptor,
            Types.NestedField field,
            ColumnarParquetSettings settings,
            PageCompressor compressor,
            ReusePool<GrowableBytes> scratch,
            OptionalInt constant) {
        String name = field.name();
        PrimitiveTypeName physical = descriptor.getPrimitiveType().getPrimitiveTypeName();
        if (physical == PrimitiveTypeName.BINARY) {
            return new BinaryColumnEncoder(descriptor, name, settings, compressor, scratch);
        }
        FixedWidthColumnEncoder.Kind kind = switch (physical) {
            case INT32 -> FixedWidthColumnEncoder.Kind.INT32;
            case INT64 -> FixedWidthColumnEncoder.Kind.INT64;
            case FLOAT -> FixedWidthColumnEncoder.Kind.FLOAT;
            case DOUBLE -> FixedWidthColumnEncoder.Kind.DOUBLE;
            default ->
                throw new IllegalArgumentException("column %s (Parquet %s) cannot be written column-wise"
                        .formatted(field, descriptor.getPrimitiveType()));
        };
        // Arrow holds decimals in 16 bytes, dates and times in their own width
        int sourceWidth = field.type().typeId() == Type.TypeID.DECIMAL ? 16 : physicalWidth(kind);
        return new FixedWidthColumnEncoder(
                descriptor, name, field.fieldId(), settings, compressor, scratch, kind, sourceWidth, constant);
    }

    private static int physicalWidth(FixedWidthColumnEncoder.Kind kind) {
        return kind == FixedWidthColumnEncoder.Kind.INT32 || kind == FixedWidthColumnEncoder.Kind.FLOAT ? 4 : 8;
    }

    /**
     * Appends rows of a batch: {@code rows[from, to)} are positions in {@code vectors}, or, if {@code rows}
     * is null, positions {@code from} to {@code to - 1}.
     */
    void write(List<FieldVector> vectors, int[] rows, int from, int to) {
        for (int start = from; start < to; start += CHECK_ROWS) {
            int end = Math.min(to, start + CHECK_ROWS);
            for (int c = 0; c < encoders.size(); c++) {
                int position = vectorPositions[c];
                encoders.get(c).append(position < 0 ? null : vectors.get(position), rows, start, end);
            }
            rowGroupRows += end - start;
            rowCount += end - start;
            if (bufferedBytes() >= rowGroupSizeBytes) {
                flushRowGroup();
            }
        }
    }

    private long bufferedBytes() {
        long bytes = 0;
        for (ColumnEncoder<?> encoder : encoders) {
            bytes += encoder.bufferedBytes();
        }
        return bytes;
    }

    long rowCount() {
        return rowCount;
    }

    /** The file's length so far, with what is buffered for the open row group. */
    long length() {
        try {
            return writer.getPos() + bufferedBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    String location() {
        return output.location();
    }

    private void flushRowGroup() {
        if (rowGroupRows == 0) {
            return;
        }
        try {
            writer.startBlock(rowGroupRows);
            for (ColumnEncoder<?> encoder : encoders) {
                encoder.writeChunk(writer);
            }
            writer.endBlock();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        rowGroupRows = 0;
    }

    /** Writes the last row group and the footer. */
    void close() {
        if (footer != null) {
            return;
        }
        try {
            flushRowGroup();
            writer.end(metadata);
            footer = writer.getFooter();
            length = writer.getPos();
            encoders.forEach(ColumnEncoder::releaseScratch);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            compressor.close();
        }
    }

    /** Stops writing after a failure: closes the stream, leaving a partial file for the caller to delete. */
    void abort() {
        if (footer == null) {
            writer.abort();
            try {
                writer.close();
            } catch (IOException | RuntimeException e) {
                // the caller is already failing with the cause; the partial file is deleted either way
            } finally {
                compressor.close();
            }
        }
    }

    long fileLength() {
        return length;
    }

    Metrics metrics(MetricsConfig metricsConfig) {
        List<FieldMetrics<?>> fieldMetrics = encoders.stream()
                .map(ColumnEncoder::fieldMetrics)
                .flatMap(Optional::stream)
                .toList();
        return ParquetUtil.footerMetrics(footer, fieldMetrics.stream(), metricsConfig);
    }

    List<Long> splitOffsets() {
        return ParquetUtil.getSplitOffsets(footer);
    }
}
