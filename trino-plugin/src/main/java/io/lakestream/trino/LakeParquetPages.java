package io.lakestream.trino;

import static io.trino.memory.context.AggregatedMemoryContext.newSimpleAggregatedMemoryContext;
import static java.util.Objects.requireNonNull;

import com.google.common.base.Suppliers;
import io.lakestream.merge.ChangedKeys;
import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.merge.FileRowKeys;
import io.lakestream.merge.KeyColumns;
import io.lakestream.merge.LakeFileDeletes;
import io.lakestream.merge.LakeKeyAccessor;
import io.lakestream.merge.LakeRowSelector;
import io.lakestream.merge.LakeThenTailSplit;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.trino.delete.LakeDeleteFileReader;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.memory.context.AggregatedMemoryContext;
import io.trino.parquet.ParquetReaderOptions;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.predicate.Domain;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.iceberg.types.Types;

/**
 * The lake side of {@link LakeParquetPageSource}: reads the lake files of a split with Trino's own Parquet reader
 * (no conversion) and gives {@link LakeThenTailSplit} their pages, the keys over their blocks ({@link
 * LakeBlockKeys}, or the lake key cache), the enforced filter (row groups it cannot match are skipped before) and
 * the narrowed pages ({@link SelectedLakePage}). Which rows survive Iceberg's deletes and the tail's keys is the
 * engine-neutral {@link LakeRowSelector}'s decision. See {@link io.lakestream.merge.LakeReadPath}.
 */
final class LakeParquetPages implements LakeThenTailSplit.LakeBatches<SourcePage> {
    private static final ParquetReaderOptions OPTIONS = ParquetReaderOptions.defaultOptions();

    private final String tableName;
    private final Iterator<LakeFile> files;
    private final List<LakeParquetFile.ReadColumn> readColumns;
    private final Map<Integer, Domain> constraint;
    /** Filters on fields of row columns that only skip lake files and row groups (the engine applies them). */
    private final Map<List<Integer>, Domain> fieldPruning;

    private final LakeRowFilter filter;
    private final LakeRowSelector selector;
    private final Optional<LakeFileDeletes> deletes;
    private final Optional<KeyColumns> longKey;
    private final LakeParquetColumns read;
    /** The accessor over the pages' blocks of each key the selector matches, made on first use. */
    private final Map<KeyColumns, LakeBlockKeys> blockKeys = new HashMap<>();

    private final Optional<LakeKeyCache> keyCache;
    private final List<LakeParquetFile.ReadColumn> readColumnsWithoutKey;
    /** For each output channel, how it is made from the current file's page. */
    private final List<Output> outputs;

    private final Supplier<LakestreamTable> table;
    private final TrinoFileSystem fileSystem;
    private final AggregatedMemoryContext memoryContext = newSimpleAggregatedMemoryContext();

    private LakeParquetFile current;
    /** The keys of the current file's rows, if they come from the key cache. */
    private Optional<LakeKeyCache.Keys> currentKeys = Optional.empty();
    /** The file row of the current page's first row (with {@link #currentKeys}). */
    private long pageFirstRow;

    private long keyCacheHits;
    private long keyCacheMisses;
    private long completedBytes;
    private long columnChunks;
    private long columnChunkBytes;
    private long readTimeNanos;
    private boolean finished;

    /**
     * @param table loads the table, only when it is needed: for the key columns of a row id
     * @param fileSystem reads the lake files
     * @param changedKeys the keys the split's log tail changes, if it has one: their lake rows are
     *     dropped
     * @param keyCache where the keys of lake files are kept, if the merge may take them from there
     *     ({@link LakeKeyCache}): used for a key of one integer column that the query does not read, to
     *     match the tail's keys or equality deletes on the key
     */
    LakeParquetPages(
            Supplier<LakestreamTable> table,
            TrinoFileSystem fileSystem,
            LakestreamTableHandle handle,
            UnionSplit split,
            List<LakestreamColumnHandle> columns,
            Optional<ChangedKeys> changedKeys,
            Optional<LakeKeyCache> keyCache) {
        this.table = Suppliers.memoize(requireNonNull(table, "table is null")::get);
        this.fileSystem = requireNonNull(fileSystem, "fileSystem is null");
        this.tableName = handle.viewName().toString();
        this.files = split.lakeFiles().iterator();

        LakeParquetColumns read = new LakeParquetColumns();
        Map<Integer, Types.NestedField> nested = nestedReads(columns);
        List<Output> outputs = new ArrayList<>(columns.size());
        for (LakestreamColumnHandle column : columns) {
            switch (column.kind()) {
                case USER -> {
                    int fieldId = column.fieldId().orElseThrow();
                    Types.NestedField nestedRead = nested.get(fieldId);
                    if (nestedRead == null) {
                        outputs.add(new ColumnOutput(read.add(fieldId, column.type()), column.type()));
                    } else {
                        int readColumn = read.addNested(fieldId, nestedRead.type());
                        outputs.add(
                                column.isDereference()
                                        ? new FieldOutput(
                                                readColumn, fieldIndexes(nestedRead, column.path()), column.type())
                                        : new ColumnOutput(readColumn, column.type()));
                    }
                }
                case ROW_ID -> {
                    List<Types.NestedField> key = this.table.get().definition().primaryKeyFields();
                    List<Type> keyTypes = column.type().getTypeParameters();
                    List<ColumnOutput> fields = new ArrayList<>(key.size());
                    for (int i = 0; i < key.size(); i++) {
                        fields.add(new ColumnOutput(read.add(key.get(i).fieldId(), keyTypes.get(i)), keyTypes.get(i)));
                    }
                    outputs.add(new RowIdOutput(fields));
                }
                // one bucket per split, or none: lake files of a table without a bucket key
                case BUCKET ->
                    outputs.add(new ConstantOutput(
                            column.type(),
                            split.bucket().isPresent() ? (long) split.bucket().getAsInt() : null));
                // a lake row has no log offset
                case OFFSET -> outputs.add(new ConstantOutput(column.type(), null));
                case CHANGE -> throw new IllegalArgumentException("not a lake column: " + column);
            }
        }
        this.outputs = List.copyOf(outputs);
        this.constraint = new LinkedHashMap<>();
        List<LakeRowFilter.ColumnDomain> domains = new ArrayList<>();
        handle.constraint().getDomains().orElse(Map.of()).forEach((column, domain) -> {
            if (!column.isUserColumn()) {
                // $bucket: enforced by choosing splits, and constant within one
                return;
            }
            int fieldId = column.fieldId().orElseThrow();
            constraint.put(fieldId, domain);
            if (!domain.isAll()) {
                domains.add(new LakeRowFilter.ColumnDomain(read.add(fieldId, column.type()), column.type(), domain));
            }
        });
        this.filter = new LakeRowFilter(domains);
        Map<List<Integer>, Domain> fieldPruning = new LinkedHashMap<>();
        handle.pruning().getDomains().orElse(Map.of()).forEach((column, domain) -> {
            if (column.isDereference() && !domain.isAll()) {
                List<Integer> ids = new ArrayList<>();
                ids.add(column.fieldId().orElseThrow());
                ids.addAll(column.path());
                fieldPruning.put(List.copyOf(ids), domain);
            }
        });
        this.fieldPruning = Map.copyOf(fieldPruning);

        boolean hasDeletes = LakeFileDeletes.hasDeletes(split);
        this.longKey = changedKeys.isPresent() || hasDeletes
                ? LakeFileDeletes.longPrimaryKey(this.table.get())
                : Optional.empty();
        List<Integer> longKeyIds = longKey.map(KeyColumns::fieldIds).orElse(List.of());
        Set<List<Integer>> equalityColumns = LakeFileDeletes.equalityFieldIds(split);
        // equality deletes matched on the pages' own blocks (not on the key cache's keys) need their columns
        for (List<Integer> fieldIds : equalityColumns) {
            if (!fieldIds.equals(longKeyIds)) {
                fieldIds.forEach(fieldId -> readIcebergColumn(read, fieldId));
            }
        }
        boolean longKeyEqualityDeletes = !longKeyIds.isEmpty() && equalityColumns.contains(longKeyIds);
        // the key from the cache only where the query would read the key column just to merge
        this.keyCache = keyCache.filter(_ ->
                ((changedKeys.isPresent() && changedKeys.get() instanceof ChangedLongKeys) || longKeyEqualityDeletes)
                        && !read.contains(longKeyIds.getFirst()));
        if (longKeyEqualityDeletes) {
            // last, like the tail's key below: with the cache, files whose keys come from it are read without it
            readIcebergColumn(read, longKeyIds.getFirst());
        }
        if (changedKeys.isPresent()) {
            KeyColumns primaryKey = new KeyColumns(this.table.get().definition().primaryKeyFields());
            for (Types.NestedField field : primaryKey.fields()) {
                read.add(field.fieldId(), LakestreamTypes.toTrinoType(field.type()));
            }
            this.selector = LakeRowSelector.withTail(primaryKey, changedKeys.get());
        } else {
            this.selector = LakeRowSelector.withoutTail();
        }
        this.read = read;
        this.readColumns = read.columns();
        this.deletes = hasDeletes
                ? Optional.of(new LakeFileDeletes(new LakeDeleteFileReader(fileSystem), this.table.get()))
                : Optional.empty();
        // with the cache, the key column was added last: files whose keys come from it are read without it
        this.readColumnsWithoutKey =
                this.keyCache.isPresent() ? this.readColumns.subList(0, this.readColumns.size() - 1) : this.readColumns;
        // an enforced filter that no row can pass (e.g. a contradiction) reads nothing
        this.finished = handle.constraint().isNone();
    }

    /**
     * The array, map and row columns the query reads, by field id: whole, or a row narrowed to the fields its
     * dereferences use (as the union split reader reads them, {@link LakestreamPageSource#readFields}). The table
     * is loaded only when there is one.
     */
    private Map<Integer, Types.NestedField> nestedReads(List<LakestreamColumnHandle> columns) {
        if (columns.stream()
                .noneMatch(column -> column.isDereference() || LakestreamNestedTypes.isNested(column.type()))) {
            return Map.of();
        }
        Map<Integer, Types.NestedField> nested = new HashMap<>();
        for (Types.NestedField field :
                LakestreamPageSource.readFields(table.get().definition(), columns)) {
            if (field.type().isNestedType()) {
                nested.put(field.fieldId(), field);
            }
        }
        return nested;
    }

    /** The position of each field of a dereference's path in the (narrowed) row it is taken out of. */
    private static int[] fieldIndexes(Types.NestedField row, List<Integer> path) {
        int[] indexes = new int[path.size()];
        Types.StructType struct = row.type().asStructType();
        for (int step = 0; step < indexes.length; step++) {
            List<Types.NestedField> fields = struct.fields();
            int id = path.get(step);
            indexes[step] = -1;
            for (int i = 0; i < fields.size(); i++) {
                if (fields.get(i).fieldId() == id) {
                    indexes[step] = i;
                }
            }
            if (indexes[step] < 0) {
                throw new IllegalArgumentException("field %d of %s is not read".formatted(id, row.name()));
            }
            if (step + 1 < indexes.length) {
                struct = fields.get(indexes[step]).type().asStructType();
            }
        }
        return indexes;
    }

    /** Registers a column of the table's current schema by field id (if it has it: else loading the deletes fails). */
    private void readIcebergColumn(LakeParquetColumns read, int fieldId) {
        Types.NestedField field = table.get().definition().schema().findField(fieldId);
        if (field != null) {
            read.add(fieldId, LakestreamTypes.toTrinoType(field.type()));
        }
    }

    @Override
    public SourcePage next(LakeRowSelector selector) {
        while (!finished) {
            if (current == null && !openNextFile(selector)) {
                finished = true;
                break;
            }
            SourcePage page = current.nextPage();
            if (page == null) {
                closeCurrent();
                continue;
            }
            pageFirstRow = current.pageFirstRow();
            return page;
        }
        closeCurrent();
        return null;
    }

    @Override
    public int rowCount(SourcePage page) {
        return page.getPositionCount();
    }

    @Override
    public long firstFileRow(SourcePage page) {
        return pageFirstRow;
    }

    @Override
    public LakeKeyAccessor keys(KeyColumns columns, SourcePage page) {
        return keys(columns, page, current);
    }

    @Override
    public boolean filters() {
        return !filter.isEmpty();
    }

    @Override
    public int filter(SourcePage page, int[] positions, int size) {
        return filter.retain(page, current::channel, positions, size);
    }

    @Override
    public int[] positions(int rowCount) {
        // a new array per page: the selected page keeps it until its blocks are loaded
        return new int[rowCount];
    }

    @Override
    public SourcePage firstRows(SourcePage page, int size) {
        return size == page.getPositionCount()
                ? new SelectedLakePage(page, outputs.size(), channels(page))
                : new SelectedLakePage(page, outputs.size(), channels(page), null, size);
    }

    @Override
    public SourcePage selectedRows(SourcePage page, int[] positions, int size) {
        return new SelectedLakePage(page, outputs.size(), channels(page), positions, size);
    }

    /** The output channels of a page of the current file. */
    private SelectedLakePage.Channel channels(SourcePage page) {
        LakeParquetFile file = current;
        return channel -> outputs.get(channel).block(page, file);
    }

    /**
     * The key {@code columns} of the page's rows: a long primary key from the lake key cache if it has the file
     * (the file is then read without the key column), else from the page's blocks.
     */
    private LakeKeyAccessor keys(KeyColumns columns, SourcePage page, LakeParquetFile file) {
        if (currentKeys.isPresent()
                && longKey.isPresent()
                && longKey.get().fieldIds().equals(columns.fieldIds())) {
            LakeKeyCache.Keys fileKeys = currentKeys.get();
            return new FileRowKeys(fileKeys.keys(), fileKeys.ascending(), pageFirstRow, page.getPositionCount());
        }
        return blockKeys
                .computeIfAbsent(columns, key -> new LakeBlockKeys(key, read::indexOf))
                .over(page, file::channel);
    }

    private boolean openNextFile(LakeRowSelector selector) {
        while (files.hasNext()) {
            LakeFile lakeFile = files.next();
            boolean cachedKeys = keyCache.isPresent() && keyCache.get().fits(lakeFile.recordCount());
            LakeFileDeletes.FileDeletes fileDeletes =
                    deletes.map(split -> split.load(lakeFile)).orElse(LakeFileDeletes.FileDeletes.NONE);
            selector.startFile(fileDeletes);
            // with cached keys or deleted rows, each page's rows are found by their row in the file: no page skipping
            Optional<LakeParquetFile> file = LakeParquetFile.open(
                    lakeFile,
                    cachedKeys ? readColumnsWithoutKey : readColumns,
                    constraint,
                    fieldPruning,
                    !cachedKeys && !selector.needsFileRows(),
                    fileSystem,
                    OPTIONS,
                    memoryContext);
            if (file.isPresent()) {
                current = file.get();
                currentKeys = cachedKeys ? Optional.of(cachedKeys(lakeFile)) : Optional.empty();
                return true;
            }
        }
        return false;
    }

    private LakeKeyCache.Keys cachedKeys(LakeFile file) {
        LakeParquetFile.ReadColumn key = readColumns.getLast();
        LakeKeyCache.Keys keys =
                keyCache.orElseThrow().keys(file, key.fieldId(), () -> LakeKeyColumn.read(file, key, fileSystem));
        if (keys.hit()) {
            keyCacheHits++;
        } else {
            keyCacheMisses++;
        }
        return keys;
    }

    private void closeCurrent() {
        if (current != null) {
            completedBytes += current.readBytes();
            columnChunks += current.columnChunks();
            columnChunkBytes += current.columnChunkBytes();
            readTimeNanos += current.readTimeNanos();
            LakeParquetFile file = current;
            current = null;
            currentKeys = Optional.empty();
            file.close();
        }
    }

    /** The lake side's metrics: the selector's counters and the key cache's hits and misses. */
    Metrics metrics() {
        long chunks = columnChunks + (current == null ? 0 : current.columnChunks());
        long chunkBytes = columnChunkBytes + (current == null ? 0 : current.columnChunkBytes());
        return selector.tail().isPresent()
                ? LakestreamMetrics.parquetMerge(
                        selector.lakeRows(),
                        selector.lakeRowsHidden(),
                        selector.rowsInKeyOrder(),
                        keyCacheHits,
                        keyCacheMisses,
                        chunks,
                        chunkBytes)
                : LakestreamMetrics.lakeParquet(selector.lakeRows(), keyCacheHits, keyCacheMisses, chunks, chunkBytes);
    }

    /** The split's selector: Iceberg's deletes and, with a tail, its changed keys over the primary key. */
    LakeRowSelector selector() {
        return selector;
    }

    long completedBytes() {
        return completedBytes + (current == null ? 0 : current.readBytes());
    }

    long readTimeNanos() {
        return readTimeNanos + (current == null ? 0 : current.readTimeNanos());
    }

    long memoryUsage() {
        return memoryContext.getBytes();
    }

    @Override
    public void close() {
        finished = true;
        closeCurrent();
    }

    @Override
    public String toString() {
        return "lake Parquet reader of " + tableName;
    }

    /** Makes one output block from the page of a file. */
    private sealed interface Output permits ColumnOutput, FieldOutput, RowIdOutput, ConstantOutput {
        Block block(SourcePage page, LakeParquetFile file);
    }

    /** The same value in every row: the split's bucket ({@code $bucket}). */
    private record ConstantOutput(Type type, Object value) implements Output {
        @Override
        public Block block(SourcePage page, LakeParquetFile file) {
            return RunLengthEncodedBlock.create(type, value, page.getPositionCount());
        }
    }

    /** A read column: the reader's block, or NULLs if the file does not have the column. */
    private record ColumnOutput(int readColumn, Type type) implements Output {
        @Override
        public Block block(SourcePage page, LakeParquetFile file) {
            int channel = file.channel(readColumn);
            return channel < 0
                    ? RunLengthEncodedBlock.create(type, null, page.getPositionCount())
                    : file.block(page, readColumn);
        }
    }

    /**
     * A field of a row column ({@code r.a.b}): taken out of the reader's (narrowed) row block, by the field's
     * position at each step; NULLs if the file does not have the row. A null row has null fields in the reader's
     * block (Parquet stores a leaf under a null struct as null), so a null {@code r} gives a null {@code r.a}, as the
     * engine's own dereference would.
     */
    private record FieldOutput(int readColumn, int[] fieldIndexes, Type type) implements Output {
        @Override
        public Block block(SourcePage page, LakeParquetFile file) {
            int channel = file.channel(readColumn);
            if (channel < 0) {
                return RunLengthEncodedBlock.create(type, null, page.getPositionCount());
            }
            Block block = file.block(page, readColumn);
            for (int index : fieldIndexes) {
                block = RowBlock.getRowFieldsFromBlock(block).get(index);
            }
            return block;
        }
    }

    /** The row id of a {@code DELETE}: the primary key as a row. */
    private record RowIdOutput(List<ColumnOutput> fields) implements Output {
        @Override
        public Block block(SourcePage page, LakeParquetFile file) {
            Block[] blocks = new Block[fields.size()];
            for (int i = 0; i < blocks.length; i++) {
                blocks[i] = fields.get(i).block(page, file);
            }
            return RowBlock.fromFieldBlocks(page.getPositionCount(), blocks);
        }
    }
}
