package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_CANNOT_OPEN_SPLIT;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogSchema;
import io.lakestream.merge.IndexedTail;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.NestedPruning;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.block.RowBlock;
import io.trino.spi.block.RunLengthEncodedBlock;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import io.trino.spi.metrics.Metrics;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.complex.StructVector;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;

/**
 * Reads one split with the union split reader (merge by key, Iceberg deletes, the pushed-down
 * filter) and converts its Arrow batches into pages.
 */
final class LakestreamPageSource implements ConnectorPageSource {
    /** Whether this reads only the tail's winners of a split merged on Trino's pages (not a whole split). */
    private final boolean tailOfParquetMerge;

    private final UnionSplit split;
    private final String tableName;
    private final BufferAllocator allocator;
    /** What the merge did (lake rows, log rows, hidden lake rows), shown in {@code EXPLAIN ANALYZE VERBOSE}. */
    private final MergeCounters counters = new MergeCounters();

    private final UnionSplitReader reader;
    /** For each output channel: how to make its block from a batch of the reader. */
    private final List<Channel> channels;

    /** Arrow vectors converted into blocks (a struct's children each count), shown as a metric. */
    private long vectorsConverted;

    private final OptionalLong limit;
    private long rowsReturned;
    private long completedBytes;
    private long readTimeNanos;
    private boolean finished;

    LakestreamPageSource(
            LakestreamTable table,
            LakestreamTableHandle handle,
            UnionSplit split,
            List<LakestreamColumnHandle> columns,
            BufferAllocator parentAllocator) {
        this(table, handle, split, columns, parentAllocator, Optional.empty());
    }

    /**
     * @param indexedTail the tail of {@code split}, indexed beforehand: the split has no lake files and only
     *     the tail's last upserts are read (see {@link LakeParquetPageSource})
     */
    LakestreamPageSource(
            LakestreamTable table,
            LakestreamTableHandle handle,
            UnionSplit split,
            List<LakestreamColumnHandle> columns,
            BufferAllocator parentAllocator,
            Optional<IndexedTail> indexedTail) {
        this.split = requireNonNull(split, "split is null");
        this.tailOfParquetMerge = indexedTail.isPresent();
        this.tableName = handle.viewName().toString();
        this.limit = handle.limit();
        List<Types.NestedField> readFields = readFields(table.definition(), columns);
        List<String> userColumns =
                readFields.stream().map(Types.NestedField::name).toList();
        List<LakestreamColumnHandle> changeColumns =
                handle.mode() == ReadMode.CHANGES ? LakestreamColumns.changeColumns(table.definition()) : List.of();
        this.channels = columns.stream()
                .map(column -> channel(table, split, column, userColumns, changeColumns))
                .toList();
        boolean withOffsets = columns.contains(LakestreamColumns.OFFSET);
        this.allocator = parentAllocator.newChildAllocator("split of " + tableName, 0, Long.MAX_VALUE);
        try {
            Expression filter = LakestreamFilterTranslator.toExpression(handle.constraint());
            this.reader = read(() -> indexedTail.isPresent()
                    ? UnionSplitReader.projectedTailWinners(
                            table, split, indexedTail.get(), readFields, filter, counters, allocator, withOffsets)
                    : UnionSplitReader.projected(
                            table,
                            split,
                            readFields,
                            filter,
                            handle.pruningExpression(),
                            MergeConfig.DEFAULT,
                            counters,
                            allocator,
                            withOffsets));
        } catch (RuntimeException e) {
            allocator.close();
            throw e;
        }
    }

    @Override
    public SourcePage getNextSourcePage() {
        if (finished) {
            return null;
        }
        long start = System.nanoTime();
        try {
            if (!read(reader::hasNext)) {
                finished = true;
                return null;
            }
            try (VectorSchemaRoot batch = read(reader::next)) {
                Page page = toPage(batch);
                if (limit.isPresent() && rowsReturned + page.getPositionCount() >= limit.getAsLong()) {
                    page = page.getRegion(0, (int) (limit.getAsLong() - rowsReturned));
                    finished = true;
                }
                rowsReturned += page.getPositionCount();
                // what the reader returned, once per column read (r and r.a of it count r once), not the output
                completedBytes += batchBytes(batch);
                return SourcePage.create(page);
            }
        } finally {
            readTimeNanos += System.nanoTime() - start;
        }
    }

    private static long batchBytes(VectorSchemaRoot batch) {
        long bytes = 0;
        for (FieldVector vector : batch.getFieldVectors()) {
            bytes += vector.getBufferSize();
        }
        return bytes;
    }

    private Page toPage(VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        Block[] blocks = new Block[channels.size()];
        for (int channel = 0; channel < blocks.length; channel++) {
            blocks[channel] = channels.get(channel).block(batch, rows);
        }
        return new Page(rows, blocks);
    }

    /**
     * The user columns the reader must return, in the order first needed: a column whole, or narrowed to the fields
     * its dereferences use ({@link NestedPruning}); for the row id the key columns. Without any (count(*) and the
     * like still need rows) the narrowest useful column, dropped again.
     */
    static List<Types.NestedField> readFields(TableDefinition definition, List<LakestreamColumnHandle> columns) {
        Schema schema = definition.schema();
        // per column read: the fields its dereferences use; null when it is read whole
        Map<Integer, Set<Integer>> read = new LinkedHashMap<>();
        for (LakestreamColumnHandle column : columns) {
            switch (column.kind()) {
                case USER -> {
                    int id = column.fieldId().getAsInt();
                    if (!column.isDereference()) {
                        read.put(id, null);
                    } else if (!read.containsKey(id) || read.get(id) != null) {
                        read.computeIfAbsent(id, _ -> new HashSet<>())
                                .add(column.path().getLast());
                    }
                }
                case ROW_ID ->
                    definition
                            .primaryKey()
                            .forEach(key -> read.put(schema.findField(key).fieldId(), null));
                case CHANGE, BUCKET, OFFSET -> {}
            }
        }
        if (read.isEmpty()) {
            String narrowest = definition.hasPrimaryKey()
                    ? definition.primaryKey().getFirst()
                    : schema.columns().getFirst().name();
            return List.of(schema.findField(narrowest));
        }
        List<Types.NestedField> fields = new ArrayList<>(read.size());
        read.forEach((id, used) -> {
            Types.NestedField column = schema.findField(id);
            fields.add(used == null ? column : NestedPruning.prune(column, used).orElseThrow());
        });
        return fields;
    }

    private Channel channel(
            LakestreamTable table,
            UnionSplit split,
            LakestreamColumnHandle column,
            List<String> userColumns,
            List<LakestreamColumnHandle> changeColumns) {
        int userOffset = changeColumns.size();
        return switch (column.kind()) {
            case USER ->
                column.isDereference()
                        ? fieldChannel(userOffset + userColumns.indexOf(column.name()), column)
                        : vectorChannel(userOffset + userColumns.indexOf(column.name()), column.type());
            case CHANGE -> vectorChannel(changeColumns.indexOf(column), column.type());
            // the reader appends the offsets after the user columns
            case OFFSET -> vectorChannel(userColumns.size(), column.type());
            case BUCKET -> {
                // one bucket per split (or none: lake files of a table without a bucket key)
                Long bucket = split.bucket().isPresent() ? (long) split.bucket().getAsInt() : null;
                yield (batch, rows) -> RunLengthEncodedBlock.create(column.type(), bucket, rows);
            }
            case ROW_ID -> {
                List<String> key = table.definition().primaryKey();
                List<Type> keyTypes = column.type().getTypeParameters();
                List<Channel> fields = new ArrayList<>(key.size());
                for (int field = 0; field < key.size(); field++) {
                    fields.add(vectorChannel(userOffset + userColumns.indexOf(key.get(field)), keyTypes.get(field)));
                }
                yield (batch, rows) -> {
                    Block[] fieldBlocks = new Block[fields.size()];
                    for (int field = 0; field < fieldBlocks.length; field++) {
                        fieldBlocks[field] = fields.get(field).block(batch, rows);
                    }
                    return RowBlock.fromFieldBlocks(rows, fieldBlocks);
                };
            }
        };
    }

    private Channel vectorChannel(int vector, Type type) {
        ArrowBlockConverter converter = ArrowBlockConverter.forType(type);
        return (batch, rows) -> convert(converter, batch.getVector(vector), rows);
    }

    private Block convert(ArrowBlockConverter converter, FieldVector vector, int rows) {
        vectorsConverted += vectorCount(vector);
        return converter.convert(vector, rows);
    }

    private static int vectorCount(FieldVector vector) {
        int count = 1;
        for (FieldVector child : vector.getChildrenFromFields()) {
            count += vectorCount(child);
        }
        return count;
    }

    /**
     * A field of a row column ({@code r.a.b}): the struct's child vector along the path, by field id, converted alone.
     * A null struct has null children (the log's and the lake reader's layout), so a null {@code r} gives a null
     * {@code r.a}, as the engine's own dereference would.
     */
    private Channel fieldChannel(int vector, LakestreamColumnHandle column) {
        ArrowBlockConverter converter = ArrowBlockConverter.forType(column.type());
        return (batch, rows) -> {
            FieldVector field = batch.getVector(vector);
            for (int id : column.path()) {
                field = ((StructVector) field)
                        .getChildrenFromFields().stream()
                                .filter(child -> Integer.toString(id)
                                        .equals(child.getField().getMetadata().get(LogSchema.FIELD_ID_METADATA)))
                                .findFirst()
                                .orElseThrow(() -> new IllegalStateException(
                                        "field %s of %s was not read".formatted(id, column.qualifiedName())));
            }
            return convert(converter, field, rows);
        };
    }

    /** Makes one output block from a batch of the reader. */
    @FunctionalInterface
    private interface Channel {
        Block block(VectorSchemaRoot batch, int rows);
    }

    /** Runs a step of the reader, turning its failures into errors that name the split. */
    private <T> T read(Supplier<T> step) {
        try {
            return step.get();
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        } catch (TrinoException e) {
            throw e;
        } catch (RuntimeException e) {
            throw new TrinoException(
                    LAKESTREAM_CANNOT_OPEN_SPLIT,
                    "Cannot read %s of table %s: %s".formatted(describe(split), tableName, e.getMessage()),
                    e);
        }
    }

    private static String describe(UnionSplit split) {
        StringBuilder description = new StringBuilder("split");
        split.bucket().ifPresent(bucket -> description.append(" of bucket ").append(bucket));
        if (!split.lakeFiles().isEmpty()) {
            description
                    .append(" with lake files ")
                    .append(split.lakeFiles().stream().map(LakeFile::path).toList());
        }
        split.logRange()
                .ifPresent(range -> description
                        .append(" with log offsets [")
                        .append(range.from())
                        .append(", ")
                        .append(range.to())
                        .append(")"));
        return description.toString();
    }

    @Override
    public Metrics getMetrics() {
        return tailOfParquetMerge
                ? LakestreamMetrics.parquetMergeTail(counters, vectorsConverted)
                : LakestreamMetrics.of(counters, vectorsConverted);
    }

    @Override
    public long getCompletedBytes() {
        return completedBytes;
    }

    @Override
    public OptionalLong getCompletedPositions() {
        return OptionalLong.of(rowsReturned);
    }

    @Override
    public long getReadTimeNanos() {
        return readTimeNanos;
    }

    @Override
    public boolean isFinished() {
        return finished;
    }

    @Override
    public long getMemoryUsage() {
        return allocator.getAllocatedMemory();
    }

    @Override
    public void close() {
        try {
            reader.close();
        } finally {
            allocator.close();
        }
    }
}
