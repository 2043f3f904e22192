package io.lakestream.reader;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A separate JVM that writes to a table: {@code <warehouse> <table> <writerId> <commits> <rowsPerCommit>}.
 * Row ids are unique per writer and commit; the name column tags the commit ("w<writer>-c<commit>").
 */
public final class WriterProcess {
    private WriterProcess() {}

    public static void main(String[] args) throws Exception {
        Path warehouse = Path.of(args[0]);
        String tableName = args[1];
        int writerId = Integer.parseInt(args[2]);
        int commits = Integer.parseInt(args[3]);
        int rowsPerCommit = Integer.parseInt(args[4]);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                RootAllocator allocator = new RootAllocator()) {
            LakestreamTable table = catalog.loadTable(TableIdentifier.of("db", tableName));
            writeCommits(table, allocator, writerId, commits, rowsPerCommit);
        }
    }

    static void writeCommits(
            LakestreamTable table,
            org.apache.arrow.memory.BufferAllocator allocator,
            int writerId,
            int commits,
            int rowsPerCommit) {
        for (int commit = 0; commit < commits; commit++) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                for (int i = 0; i < rowsPerCommit; i++) {
                    long id = writerId * 1_000_000L + commit * 1_000L + i;
                    writer.append(Map.of("id", id, "name", tag(writerId, commit)));
                }
                writer.commit();
            }
        }
    }

    static String tag(int writerId, int commit) {
        return "w%s-c%s".formatted(writerId, commit);
    }
}
