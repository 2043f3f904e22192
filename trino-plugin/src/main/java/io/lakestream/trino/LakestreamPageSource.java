package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_CANNOT_OPEN_SPLIT;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.MergeConfig;
import io.lakestream.merge.MergeCounters;
import io.lakestream.merge.UnionSplitReader;
import io.lakestream.plan.LakeFile;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.UnionSplit;
import io.lakestream.table.LakestreamTable;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSource;
import io.trino.spi.connector.SourcePage;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;

/**
 * Reads one split with the union split reader (merge by key, Iceberg deletes, the pushed-down
 * filter) and converts its Arrow batches into pages.
 */
final class LakestreamPageSource implements ConnectorPageSource {
    private final UnionSplit split;
    private final String tableName;
    private final BufferAllocator allocator;
    /** What the merge did (lake rows, log rows, hidden lake rows); not reported yet, see EXPLAIN ANALYZE in the issue. */
    private final MergeCounters counters = new MergeCounters();

    private final UnionSplitReader reader;
    /** For each output channel: the reader's output column it comes from. */
    private final int[] sourceColumns;

    private final List<ArrowBlockConverter> converters;
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
        this.split = requireNonNull(split, "split is null");
        this.tableName = handle.viewName().toString();
        this.limit = handle.limit();
        List<String> userColumns = new ArrayList<>();
        for (LakestreamColumnHandle column : columns) {
            if (column.isUserColumn() && !userColumns.contains(column.name())) {
                userColumns.add(column.name());
            }
        }
        if (userColumns.isEmpty()) {
            // count(*) and the like still need rows: read the narrowest useful column and drop it
            userColumns.add(
                    table.definition().hasPrimaryKey()
                            ? table.definition().primaryKey().getFirst()
                            : table.definition().schema().columns().getFirst().name());
        }
        int userOffset = handle.mode() == ReadMode.CHANGES ? LakestreamColumns.CHANGE_COLUMNS.size() : 0;
        this.sourceColumns = columns.stream()
                .mapToInt(column -> column.isUserColumn()
                        ? userOffset + userColumns.indexOf(column.name())
                        : LakestreamColumns.CHANGE_COLUMNS.indexOf(column))
                .toArray();
        this.converters = columns.stream()
                .map(column -> ArrowBlockConverter.forType(column.type()))
                .toList();
        this.allocator = parentAllocator.newChildAllocator("split of " + tableName, 0, Long.MAX_VALUE);
        try {
            this.reader = read(() -> new UnionSplitReader(
                    table,
                    split,
                    userColumns,
                    LakestreamFilterTranslator.toExpression(handle.constraint()),
                    MergeConfig.DEFAULT,
                    counters,
                    allocator));
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
                completedBytes += page.getSizeInBytes();
                return SourcePage.create(page);
            }
        } finally {
            readTimeNanos += System.nanoTime() - start;
        }
    }

    private Page toPage(VectorSchemaRoot batch) {
        int rows = batch.getRowCount();
        Block[] blocks = new Block[sourceColumns.length];
        for (int channel = 0; channel < blocks.length; channel++) {
            blocks[channel] = converters.get(channel).convert(batch.getVector(sourceColumns[channel]), rows);
        }
        return new Page(rows, blocks);
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
