package io.lakestream.trino;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import io.trino.testing.DistributedQueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Freshness: the time from a committed write (Java writer) to the first Trino query that sees it,
 * over many commits, while the tiering service runs every second. Lake-only readers, for
 * comparison, see a commit only after a tiering round: their latency is reported the same way.
 *
 * <p>Run: {@code java -cp <trino-plugin test class path> io.lakestream.trino.FreshnessBenchmark [commits]}
 * (the JVM flags of the root pom), see docs/benchmarks.md.
 */
public final class FreshnessBenchmark {
    private FreshnessBenchmark() {}

    public static void main(String[] args) throws Exception {
        int commits = args.length > 0 ? Integer.parseInt(args[0]) : 200;
        Path warehouse = Files.createTempDirectory("lakestream-freshness");
        try (DistributedQueryRunner trino =
                        LakestreamQueryRunner.builder(warehouse).build();
                LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(warehouse));
                RootAllocator allocator = new RootAllocator();
                TieringService tiering = new TieringService(
                        catalog,
                        TieringConfig.defaults().toBuilder()
                                .interval(Duration.ofSeconds(1))
                                .build())) {
            trino.execute(
                    "CREATE TABLE lakestream.tests.events (id bigint, note varchar) WITH (primary_key = ARRAY['id'], bucket_count = 4)");
            LakestreamTable table = catalog.loadTable(TableIdentifier.of("tests", "events"));
            tiering.start();
            List<Long> union = new ArrayList<>();
            List<Long> lake = new ArrayList<>();
            for (int i = 0; i < commits; i++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    writer.upsert(Map.of("id", (long) i, "note", "commit " + i));
                    writer.commit();
                }
                long committed = System.nanoTime();
                union.add(waitUntilVisible(
                        trino, "SELECT count(*) FROM lakestream.tests.events WHERE id = " + i, committed));
                if (i % 20 == 0) {
                    // lake-only readers wait for tiering; sampled, since each wait lasts up to a tiering interval
                    lake.add(waitUntilVisible(
                            trino, "SELECT count(*) FROM lakestream.tests.\"events$lake\" WHERE id = " + i, committed));
                }
            }
            System.out.printf("commits: %d, tiering interval 1 s, 2 cores%n", commits);
            System.out.printf(
                    "union read (t)      : p50 %4d ms  p99 %4d ms  max %4d ms%n",
                    percentile(union, 50), percentile(union, 99), percentile(union, 100));
            System.out.printf(
                    "lake only (t$lake)  : p50 %4d ms  p99 %4d ms  max %4d ms  (%d samples)%n",
                    percentile(lake, 50), percentile(lake, 99), percentile(lake, 100), lake.size());
        }
    }

    /** Milliseconds from {@code committedNanos} until the query returns 1. */
    private static long waitUntilVisible(DistributedQueryRunner trino, String query, long committedNanos)
            throws InterruptedException {
        while (((Number) trino.execute(query).getOnlyValue()).longValue() != 1) {
            Thread.sleep(1);
        }
        return (System.nanoTime() - committedNanos) / 1_000_000;
    }

    private static long percentile(List<Long> values, int percentile) {
        List<Long> sorted = values.stream().sorted().toList();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
