package io.lakestream.sqltests;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.nio.file.Path;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A Java writer in a JVM of its own: {@code <catalog-config-file> <schema> <table> <source> <keyBase> <seed>
 * <commits> <rowsPerCommit> <pauseMillis>} writes the {@link WriterPlan} those arguments give, one {@link
 * LakestreamWriter} commit per planned commit with a pause after each (a streaming writer's pace), through
 * the catalog the file describes (see {@link ServerCatalog#writeConfigFile}).
 */
public final class CatalogWriterProcess {
    private CatalogWriterProcess() {}

    public static void main(String[] args) throws Exception {
        WriterPlan plan = WriterPlan.generate(
                args[3],
                Long.parseLong(args[4]),
                Long.parseLong(args[5]),
                Integer.parseInt(args[6]),
                Integer.parseInt(args[7]));
        try (LakestreamCatalog catalog = LakestreamCatalog.open(ServerCatalog.readConfigFile(Path.of(args[0])));
                RootAllocator allocator = new RootAllocator()) {
            LakestreamTable table = catalog.loadTable(TableIdentifier.of(args[1], args[2]));
            for (WriterPlan.Commit commit : plan.commits()) {
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    commit.upserts()
                            .forEach((id, seq) -> writer.upsert(Map.of("id", id, "src", plan.source(), "seq", seq)));
                    commit.deletes().forEach(id -> writer.delete(Map.of("id", id)));
                    writer.commit();
                }
                Thread.sleep(Long.parseLong(args[8]));
            }
        }
        System.out.println("COMMITTED " + plan.commits().size());
    }
}
