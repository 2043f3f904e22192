package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_COMMIT_ERROR;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.concurrent.CompletableFuture.completedFuture;

import com.google.common.collect.ImmutableList;
import io.airlift.slice.Slice;
import io.airlift.slice.Slices;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.LogJson;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import io.trino.spi.Page;
import io.trino.spi.TrinoException;
import io.trino.spi.block.Block;
import io.trino.spi.connector.ConnectorPageSink;
import java.io.IOException;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.data.GenericRecord;

/**
 * One task's part of an {@code INSERT}: writes its rows into staged log segments (an upsert per row
 * for a primary-key table, an append otherwise) and hands the segments to the coordinator as
 * fragments; nothing is visible until {@code finishInsert} commits all tasks' segments at once.
 */
final class LakestreamPageSink implements ConnectorPageSink {
    private final LakestreamWriter writer;
    private final boolean upsert;
    private final GenericRecord row;
    /** For each page channel: the position of its column in the table schema. */
    private final int[] schemaPositions;

    private final List<TrinoValueReader> readers;

    LakestreamPageSink(
            LakestreamTable table, List<LakestreamColumnHandle> columns, String leaseId, BufferAllocator allocator) {
        // staged under the coordinator's lease, which it holds until it commits or cleans up
        this.writer = new LakestreamWriter(table, allocator, leaseId);
        this.upsert = table.definition().hasPrimaryKey();
        // a record of the table's own schema is converted by position, without name lookups
        this.row = GenericRecord.create(table.definition().schema());
        List<String> names = table.definition().schema().columns().stream()
                .map(column -> column.name())
                .toList();
        this.schemaPositions = columns.stream()
                .mapToInt(column -> names.indexOf(column.name()))
                .toArray();
        this.readers = columns.stream()
                .map(column -> TrinoValueReader.forType(column.type()))
                .toList();
    }

    @Override
    public CompletableFuture<?> appendPage(Page page) {
        try {
            for (int position = 0; position < page.getPositionCount(); position++) {
                for (int channel = 0; channel < schemaPositions.length; channel++) {
                    Block block = page.getBlock(channel);
                    row.set(
                            schemaPositions[channel],
                            block.isNull(position) ? null : readers.get(channel).read(block, position));
                }
                if (upsert) {
                    writer.upsert(row);
                } else {
                    writer.append(row);
                }
            }
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        return NOT_BLOCKED;
    }

    @Override
    public CompletableFuture<Collection<Slice>> finish() {
        List<StagedSegment> segments;
        try {
            segments = writer.prepare();
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        return completedFuture(
                segments.stream().map(LakestreamPageSink::writeFragment).collect(ImmutableList.toImmutableList()));
    }

    @Override
    public void abort() {
        writer.abort();
    }

    static Slice writeFragment(StagedSegment segment) {
        return Slices.wrappedBuffer(LogJson.write(segment));
    }

    static StagedSegment readFragment(Slice fragment) {
        try {
            return LogJson.read(fragment.getBytes(), StagedSegment.class);
        } catch (IOException e) {
            throw new TrinoException(
                    LAKESTREAM_COMMIT_ERROR, "A task of the INSERT returned an unreadable segment description", e);
        }
    }
}
