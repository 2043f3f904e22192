package io.lakestream.trino.delete;

import static io.airlift.slice.Slices.utf8Slice;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_BAD_DATA;
import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static io.trino.spi.type.BigintType.BIGINT;
import static io.trino.spi.type.VarcharType.VARCHAR;
import static java.util.Objects.requireNonNull;

import io.airlift.slice.Slice;
import io.lakestream.merge.ChangedEncodedKeys;
import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.merge.DeleteFileLoader;
import io.lakestream.merge.KeyBuffer;
import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.KeyIndex;
import io.lakestream.merge.LongKeyIndex;
import io.lakestream.merge.PositionDeletes;
import io.lakestream.plan.LakeDeleteFile;
import io.lakestream.plan.LakeFile;
import io.lakestream.trino.LakeParquetFile;
import io.lakestream.trino.LakestreamTypes;
import io.lakestream.trino.TrinoKeyEncoder;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.types.Types;

/**
 * Reads a lake data file's Iceberg delete files with Trino's Parquet reader (the reader of the data
 * files, through the connector's file system): the rows its position delete files remove, and the rows of an
 * equality delete file as a set of keys ({@link ChangedKeys}, matched against the lake rows like the keys of a
 * log tail by {@link io.lakestream.merge.LakeRowSelector}).
 */
public final class LakeDeleteFileReader implements DeleteFileLoader {
    private static final ParquetReaderOptions OPTIONS = ParquetReaderOptions.defaultOptions();
    private static final LakeParquetFile.ReadColumn FILE_PATH =
            new LakeParquetFile.ReadColumn(MetadataColumns.DELETE_FILE_PATH.fieldId(), VARCHAR);
    private static final LakeParquetFile.ReadColumn POSITION =
            new LakeParquetFile.ReadColumn(MetadataColumns.DELETE_FILE_POS.fieldId(), BIGINT);

    private final TrinoFileSystem fileSystem;

    public LakeDeleteFileReader(TrinoFileSystem fileSystem) {
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
    }

    @Override
    public PositionDeletes positionDeletes(LakeFile file) {
        Slice path = utf8Slice(file.path());
        // a position delete file may name several data files: its row groups of other files are skipped
        Map<Integer, Domain> ofFile = Map.of(FILE_PATH.fieldId(), Domain.singleValue(VARCHAR, path));
        long[] rows = new long[16];
        int count = 0;
        for (LakeDeleteFile delete : file.deletes()) {
            if (delete.content() != LakeDeleteFile.Content.POSITION) {
                continue;
            }
            // empty only if the file has no file_path column at all
            try (LakeParquetFile parquet =
                    open(delete, List.of(FILE_PATH, POSITION), ofFile).orElseThrow(() -> notADeleteFile(delete))) {
                requireColumns(parquet, delete, 2);
                for (SourcePage page = parquet.nextPage(); page != null; page = parquet.nextPage()) {
                    Block paths = page.getBlock(parquet.channel(0));
                    Block positions = page.getBlock(parquet.channel(1));
                    for (int position = 0; position < page.getPositionCount(); position++) {
                        if (paths.isNull(position)
                                || positions.isNull(position)
                                || !VARCHAR.getSlice(paths, position).equals(path)) {
                            continue;
                        }
                        if (count == rows.length) {
                            rows = Arrays.copyOf(rows, count * 2);
                        }
                        rows[count++] = BIGINT.getLong(positions, position);
                    }
                }
            }
        }
        long[] sorted = Arrays.copyOf(rows, count);
        Arrays.sort(sorted);
        return PositionDeletes.of(sorted);
    }

    /**
     * The rows of an equality delete file: the values of its equality columns, as primitive longs when they
     * are the table's primary key of one {@code integer}, {@code bigint} or {@code date} column (never NULL
     * in a lake row), otherwise encoded like {@link TrinoKeyEncoder} encodes the lake rows' values (NULL
     * matches NULL, as Iceberg's equality deletes do).
     *
     * @param keyColumns the equality columns, in the order of the delete file's equality field ids
     * @param longKey whether {@code columns} are the table's primary key of one long-like column
     */
    @Override
    public ChangedKeys equalityKeys(LakeDeleteFile delete, KeyColumns keyColumns, boolean longKey) {
        List<Types.NestedField> columns = keyColumns.fields();
        List<org.apache.iceberg.types.Type> icebergTypes = keyColumns.types();
        List<Type> types =
                icebergTypes.stream().map(LakestreamTypes::toTrinoType).toList();
        List<LakeParquetFile.ReadColumn> readColumns = new ArrayList<>(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            readColumns.add(new LakeParquetFile.ReadColumn(columns.get(i).fieldId(), types.get(i)));
        }
        int expectedKeys = (int) Math.min(delete.recordCount(), 1 << 24);
        LongKeyIndex longs = longKey ? new LongKeyIndex(expectedKeys) : null;
        KeyIndex encoded = longKey ? null : new KeyIndex();
        TrinoKeyEncoder encoder = new TrinoKeyEncoder(icebergTypes, types);
        KeyBuffer key = new KeyBuffer();
        try (LakeParquetFile parquet = open(delete, readColumns, Map.of()).orElseThrow()) {
            requireColumns(parquet, delete, readColumns.size());
            Block[] blocks = new Block[readColumns.size()];
            for (SourcePage page = parquet.nextPage(); page != null; page = parquet.nextPage()) {
                for (int i = 0; i < blocks.length; i++) {
                    blocks[i] = page.getBlock(parquet.channel(i));
                }
                for (int position = 0; position < page.getPositionCount(); position++) {
                    if (longKey) {
                        // a NULL key matches no lake row: a primary key is never NULL
                        if (!blocks[0].isNull(position)) {
                            longs.put(types.getFirst().getLong(blocks[0], position), 0);
                        }
                    } else {
                        encoder.encode(blocks, position, key);
                        encoded.put(key, 0);
                    }
                }
            }
        }
        return longKey ? ChangedLongKeys.of(longs) : ChangedEncodedKeys.of(encoded);
    }

    private Optional<LakeParquetFile> open(
            LakeDeleteFile delete, List<LakeParquetFile.ReadColumn> columns, Map<Integer, Domain> constraint) {
        LakeFile file = new LakeFile(
                delete.path(), 0, delete.fileSizeBytes(), delete.fileSizeBytes(), delete.recordCount(), List.of());
        return LakeParquetFile.open(
                file, columns, constraint, true, fileSystem, OPTIONS, newSimpleAggregatedMemoryContext());
    }

    private static void requireColumns(LakeParquetFile parquet, LakeDeleteFile delete, int columns) {
        for (int i = 0; i < columns; i++) {
            if (parquet.channel(i) < 0) {
                throw notADeleteFile(delete);
            }
        }
    }

    private static TrinoException notADeleteFile(LakeDeleteFile delete) {
        return new TrinoException(
                LAKESTREAM_BAD_DATA,
                "Lake delete file %s does not have the columns of an Iceberg %s delete file: restore the file, or roll the lake table back to a snapshot from before it was added"
                        .formatted(delete.path(), delete.content().name().toLowerCase(Locale.ROOT)));
    }
}
