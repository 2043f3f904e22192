package io.lakestream.write;

import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import org.apache.arrow.memory.BufferAllocator;

/** For tests in other packages: a writer that writes per-(partition, bucket) logs (not yet the engines' default). */
public final class PartitionedLogWriters {
    private PartitionedLogWriters() {}

    public static LakestreamWriter open(LakestreamTable table, BufferAllocator allocator) {
        return LakestreamWriter.partitionedLogWriter(table, allocator, Clock.systemUTC());
    }
}
