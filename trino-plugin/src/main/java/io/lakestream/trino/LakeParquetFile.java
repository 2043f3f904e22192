package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_CANNOT_OPEN_SPLIT;
import static io.trino.parquet.ParquetTypeUtils.constructField;
import static io.trino.parquet.ParquetTypeUtils.getColumnIO;
import static io.trino.parquet.ParquetTypeUtils.getDescriptors;
import static io.trino.parquet.ParquetTypeUtils.lookupColumnByName;
import static io.trino.parquet.predicate.PredicateUtils.buildPredicate;
import static io.trino.parquet.predicate.PredicateUtils.getFilteredRowGroups;
import static java.util.Objects.requireNonNull;
import static org.joda.time.DateTimeZone.UTC;

import com.google.common.collect.ImmutableList;
import io.lakestream.plan.LakeFile;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.Column;
import io.trino.parquet.Field;
import io.trino.parquet.ParquetCorruptionException;
import io.trino.parquet.ParquetDataSourceId;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.parquet.metadata.FileMetadata;
import io.trino.parquet.metadata.ParquetMetadata;
import io.trino.parquet.predicate.TupleDomainParquetPredicate;
import io.trino.parquet.reader.MetadataReader;
import io.trino.parquet.reader.ParquetReader;
import io.trino.parquet.reader.RowGroupInfo;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.type.Type;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.parquet.column.ColumnDescriptor;
import org.apache.parquet.io.ColumnIO;
import org.apache.parquet.io.MessageColumnIO;
import org.apache.parquet.schema.MessageType;

/**
 * One lake Parquet file (or the row groups of a byte range of it) opened with Trino's Parquet
 * reader. Columns are resolved by Iceberg field id, so a renamed column reads under its new name
 * and a column added after the file was written has no reader channel (it reads as NULL). Row
 * groups whose statistics cannot match the enforced filter are skipped; the filter itself is still
 * applied to every row by the caller.
 */
public final class LakeParquetFile implements AutoCloseable {
    /** Domains with more values than this are simplified to a range for row-group pruning. */
    private static final int DOMAIN_COMPACTION_THRESHOLD = 1000;

    /**
     * A column to read: its Iceberg field id and Trino type; for an array, map or row column also its Iceberg type
     * (a row narrowed to the fields a query uses), whose nested fields are matched by id ({@link LakeParquetFields}).
     */
    public record ReadColumn(int fieldId, Type type, Optional<org.apache.iceberg.types.Type> nestedType) {
        public ReadColumn {
            requireNonNull(type, "type is null");
            requireNonNull(nestedType, "nestedType is null");
        }

        public ReadColumn(int fieldId, Type type) {
            this(fieldId, type, Optional.empty());
        }

        /** A nested column read as {@code icebergType}. */
        static ReadColumn nested(int fieldId, org.apache.iceberg.types.Type icebergType) {
            return new ReadColumn(fieldId, LakestreamTypes.toTrinoType(icebergType), Optional.of(icebergType));
        }
    }

    private final LakeParquetDataSource dataSource;
    private final ParquetReader reader;
    /** For each read column, its channel in the reader's pages, or -1 if the file does not have it. */
    private final int[] channels;
    /**
     * For each read column the reader reads with shape fields ({@link LakeShapeFields}), the type it reads it as and
     * the column's own; else null.
     */
    private final ShapeRead[] shapeReads;
    /** The Parquet column chunks the reader reads (one per leaf column per row group), and their bytes. */
    private final long columnChunks;

    private final long columnChunkBytes;

    private LakeParquetFile(
            LakeParquetDataSource dataSource,
            ParquetReader reader,
            int[] channels,
            ShapeRead[] shapeReads,
            long columnChunks,
            long columnChunkBytes) {
        this.dataSource = dataSource;
        this.reader = reader;
        this.channels = channels;
        this.shapeReads = shapeReads;
        this.columnChunks = columnChunks;
        this.columnChunkBytes = columnChunkBytes;
    }

    /**
     * Opens a file; empty if the filter cannot match any of its rows (a filter column the file does
     * not have reads as NULL).
     *
     * @param constraint the enforced filter, by field id
     * @param pageSkipping whether the filter may also skip Parquet pages inside a row group (by the column
     *     index); without it every page of a row group is read, so that {@link #pageFirstRow} is the file row
     *     of the page's first row, followed by the page's other rows in order
     */
    public static Optional<LakeParquetFile> open(
            LakeFile file,
            List<ReadColumn> columns,
            Map<Integer, Domain> constraint,
            boolean pageSkipping,
            TrinoFileSystem fileSystem,
            ParquetReaderOptions options,
            AggregatedMemoryContext memoryContext) {
        return open(file, columns, constraint, Map.of(), pageSkipping, fileSystem, options, memoryContext);
    }

    /**
     * Opens a file as {@link #open(LakeFile, List, Map, boolean, TrinoFileSystem, ParquetReaderOptions,
     * AggregatedMemoryContext)} does; row groups (never pages, never rows) are also skipped by {@code fieldPruning}.
     *
     * @param fieldPruning filters on fields of row columns ({@code r.a}) that the engine applies itself, by the field
     *     ids from the row column down: a file that lacks the field (all nulls) is skipped when the domain does not
     *     take NULL, and row groups whose statistics of the field cannot match are skipped
     */
    public static Optional<LakeParquetFile> open(
            LakeFile file,
            List<ReadColumn> columns,
            Map<Integer, Domain> constraint,
            Map<List<Integer>, Domain> fieldPruning,
            boolean pageSkipping,
            TrinoFileSystem fileSystem,
            ParquetReaderOptions options,
            AggregatedMemoryContext memoryContext) {
        LakeParquetDataSource dataSource = null;
        try {
            dataSource = LakeParquetDataSource.open(file.path(), file.fileSizeBytes(), fileSystem, options);
            ParquetMetadata metadata =
                    MetadataReader.readFooter(dataSource, options, Optional.empty(), Optional.empty());
            FileMetadata fileMetadata = metadata.getFileMetaData();
            MessageType fileSchema = fileMetadata.getSchema();
            Map<Integer, org.apache.parquet.schema.Type> fileColumns = new HashMap<>();
            for (org.apache.parquet.schema.Type column : fileSchema.getFields()) {
                if (column.getId() != null) {
                    fileColumns.put(column.getId().intValue(), column);
                }
            }
            for (Map.Entry<Integer, Domain> entry : constraint.entrySet()) {
                if (!fileColumns.containsKey(entry.getKey())
                        && !entry.getValue().isNullAllowed()) {
                    // the column is NULL in every row of this file, and the filter does not take NULL
                    dataSource.close();
                    return Optional.empty();
                }
            }

            // the row columns a pruning filter reads, by the file's path of the field's leaf
            Map<List<String>, Domain> leafPruning = new HashMap<>();
            List<org.apache.parquet.schema.Type> requested = new ArrayList<>();
            for (Map.Entry<List<Integer>, Domain> entry : fieldPruning.entrySet()) {
                org.apache.parquet.schema.Type column =
                        fileColumns.get(entry.getKey().getFirst());
                Optional<List<String>> leaf = column == null
                        ? Optional.empty()
                        : LakeParquetFields.leafPath(
                                column, entry.getKey().subList(1, entry.getKey().size()));
                if (leaf.isEmpty()) {
                    if (!entry.getValue().isNullAllowed()) {
                        // the field is NULL in every row of this file, and the filter does not take NULL
                        dataSource.close();
                        return Optional.empty();
                    }
                    continue;
                }
                leafPruning.put(leaf.get(), entry.getValue());
                if (!requested.contains(column)) {
                    requested.add(column);
                }
            }
            for (ReadColumn column : columns) {
                org.apache.parquet.schema.Type fileColumn = fileColumns.get(column.fieldId());
                if (fileColumn != null && !requested.contains(fileColumn)) {
                    requested.add(fileColumn);
                }
            }
            MessageType requestedSchema = new MessageType(fileSchema.getName(), requested);
            MessageColumnIO columnIo = getColumnIO(fileSchema, requestedSchema);
            Map<List<String>, ColumnDescriptor> descriptors = getDescriptors(fileSchema, requestedSchema);

            int[] channels = new int[columns.size()];
            Arrays.fill(channels, -1);
            ShapeRead[] shapeReads = new ShapeRead[columns.size()];
            List<Column> readerColumns = new ArrayList<>(columns.size());
            for (int i = 0; i < columns.size(); i++) {
                org.apache.parquet.schema.Type fileColumn =
                        fileColumns.get(columns.get(i).fieldId());
                if (fileColumn == null) {
                    continue;
                }
                String name = fileColumn.getName();
                Optional<Field> field = field(columns.get(i), lookupColumnByName(columnIo, name), name, file);
                if (field.isPresent()) {
                    if (!field.get().getType().equals(columns.get(i).type())) {
                        shapeReads[i] = new ShapeRead(
                                field.get().getType(), columns.get(i).type());
                    }
                    channels[i] = readerColumns.size();
                    readerColumns.add(new Column(name, field.get()));
                }
            }

            Map<ColumnDescriptor, Domain> parquetDomains = new HashMap<>();
            constraint.forEach((fieldId, domain) -> {
                org.apache.parquet.schema.Type column = fileColumns.get(fieldId);
                if (column != null && column.isPrimitive()) {
                    ColumnDescriptor descriptor = descriptors.get(List.of(column.getName()));
                    if (descriptor != null) {
                        parquetDomains.put(descriptor, domain);
                    }
                }
            });
            TupleDomain<ColumnDescriptor> parquetDomain = TupleDomain.withColumnDomains(parquetDomains);
            TupleDomainParquetPredicate predicate = buildPredicate(requestedSchema, parquetDomain, descriptors, UTC);
            // row groups are skipped by the enforced filter and the pruning filters; pages by the enforced one only
            Map<ColumnDescriptor, Domain> rowGroupDomains = new HashMap<>(parquetDomains);
            leafPruning.forEach((path, domain) -> {
                ColumnDescriptor descriptor = descriptors.get(path);
                if (descriptor != null) {
                    rowGroupDomains.merge(descriptor, domain, Domain::intersect);
                }
            });
            TupleDomain<ColumnDescriptor> rowGroupDomain = TupleDomain.withColumnDomains(rowGroupDomains);
            List<RowGroupInfo> rowGroups = getFilteredRowGroups(
                    file.start(),
                    file.length(),
                    dataSource,
                    metadata,
                    List.of(rowGroupDomain),
                    List.of(buildPredicate(requestedSchema, rowGroupDomain, descriptors, UTC)),
                    descriptors,
                    UTC,
                    DOMAIN_COMPACTION_THRESHOLD,
                    options);
            long columnChunks = 0;
            long columnChunkBytes = 0;
            List<ColumnDescriptor> leaves = new ArrayList<>();
            readerColumns.forEach(column -> LakeParquetFields.forEachLeaf(column.field(), leaves::add));
            for (RowGroupInfo rowGroup : rowGroups) {
                for (ColumnDescriptor leaf : leaves) {
                    columnChunks++;
                    columnChunkBytes += rowGroup.prunedBlockMetadata()
                            .getColumnChunkMetaData(leaf)
                            .getTotalSize();
                }
            }
            ParquetDataSourceId id = dataSource.getId();
            ParquetReader reader = new ParquetReader(
                    Optional.ofNullable(fileMetadata.getCreatedBy()),
                    ImmutableList.copyOf(readerColumns),
                    false,
                    rowGroups,
                    dataSource,
                    UTC,
                    memoryContext,
                    options,
                    exception -> readError(id, exception),
                    // the reader skips pages by the column index only when it has the predicate
                    pageSkipping ? Optional.of(predicate) : Optional.empty(),
                    Optional.empty(),
                    Optional.empty());
            return Optional.of(
                    new LakeParquetFile(dataSource, reader, channels, shapeReads, columnChunks, columnChunkBytes));
        } catch (IOException | RuntimeException e) {
            if (dataSource != null) {
                try {
                    dataSource.close();
                } catch (IOException closeError) {
                    e.addSuppressed(closeError);
                }
            }
            throw readError(new ParquetDataSourceId(file.path()), e);
        }
    }

    /**
     * The reader's field of a column of the file: by name for a flat column, by field id for a nested one; empty
     * if the file holds none of a nested column's fields read.
     */
    private static Optional<Field> field(ReadColumn column, ColumnIO fileColumn, String name, LakeFile file) {
        try {
            return column.nestedType().isPresent()
                    ? LakeParquetFields.field(column.nestedType().get(), fileColumn)
                    : Optional.of(constructField(column.type(), fileColumn).orElseThrow());
        } catch (RuntimeException e) {
            throw new TrinoException(
                    LAKESTREAM_BAD_DATA,
                    "Column %s of lake file %s cannot be read as %s".formatted(name, file.path(), column.type()),
                    e);
        }
    }

    /** The next page of the file's rows (only the columns the file has), or null at its end. */
    public SourcePage nextPage() {
        try {
            return reader.nextPage();
        } catch (IOException | RuntimeException e) {
            throw readError(dataSource.getId(), e);
        }
    }

    /**
     * The row of the file (0 for its first row) that the last page of {@link #nextPage} starts with; its
     * rows are consecutive rows of the file when the file was opened without page skipping.
     */
    public long pageFirstRow() {
        return reader.lastBatchStartRow();
    }

    /** The channel of a read column (by its index in the columns the file was opened with), -1 if absent. */
    public int channel(int readColumn) {
        return channels[readColumn];
    }

    /**
     * The block of a read column the file has ({@link #channel} is not -1) in a page of {@link #nextPage}: the
     * reader's, without the fields it read only for the shape of rows ({@link LakeShapeFields}).
     */
    public Block block(SourcePage page, int readColumn) {
        try {
            Block block = page.getBlock(channels[readColumn]);
            ShapeRead shapeRead = shapeReads[readColumn];
            return shapeRead == null ? block : LakeShapeFields.strip(block, shapeRead.read(), shapeRead.declared());
        } catch (RuntimeException e) {
            throw readError(dataSource.getId(), e);
        }
    }

    /** A column the reader reads as {@code read}, with shape fields, whose type is {@code declared}. */
    private record ShapeRead(Type read, Type declared) {}

    /** The Parquet column chunks the reader reads: one per leaf column read per row group read. */
    public long columnChunks() {
        return columnChunks;
    }

    /** The stored bytes of {@link #columnChunks}. */
    public long columnChunkBytes() {
        return columnChunkBytes;
    }

    public long readBytes() {
        return dataSource.getReadBytes();
    }

    public long readTimeNanos() {
        return dataSource.getReadTimeNanos();
    }

    private static TrinoException readError(ParquetDataSourceId file, Exception e) {
        if (e instanceof TrinoException trinoException) {
            return trinoException;
        }
        if (e instanceof ParquetCorruptionException) {
            return new TrinoException(
                    LAKESTREAM_BAD_DATA, "Lake file %s is corrupt: %s".formatted(file, e.getMessage()), e);
        }
        return new TrinoException(
                LAKESTREAM_CANNOT_OPEN_SPLIT, "Cannot read lake file %s: %s".formatted(file, e.getMessage()), e);
    }

    @Override
    public void close() {
        try {
            reader.close();
        } catch (IOException e) {
            throw readError(dataSource.getId(), e);
        }
    }
}
