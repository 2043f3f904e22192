package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.PartitionedScores;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TestLakestreamCli {
    @TempDir
    Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void statusShowsLagAndTierClosesIt() throws Exception {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = warehouse.createPrimaryKeyTable("users", 2);
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (long id = 0; id < 30; id++) {
                    writer.upsert(Map.of("id", id));
                }
                writer.commit();
            }
        }
        String warehouse = directory.toString();
        assertThat(run("status", "--warehouse", warehouse)).isZero();
        assertThat(stdout())
                .contains(
                        "db.users  (primary key [id], 2 buckets, log version 1, lake snapshot none)  30 records behind");

        assertThat(run("tier", "--once", "--warehouse", warehouse)).isZero();
        assertThat(stdout()).contains("db.users: tiered 30 changes into lake snapshot");

        assertThat(run("status", "--warehouse", warehouse)).isZero();
        assertThat(stdout()).contains("0 records behind").doesNotContain("lake snapshot none");
        assertThat(run("tier", "--once", "--warehouse", warehouse)).isZero();
        assertThat(stdout()).contains("db.users: up to date");
    }

    /**
     * A table whose log is kept per (partition, bucket): one status row per pair, named by its partition path, with
     * that pair's offsets (the oracle: the ends of the rows written into each region's buckets); unpartitioned logs
     * keep their table without the column.
     */
    @Test
    void statusOfAPartitionedLogShowsAPartitionColumn() throws Exception {
        Map<List<Object>, Long> written = new HashMap<>();
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable table = PartitionedScores.create(warehouse, "scores", 2);
            warehouse.createPrimaryKeyTable("users", 1);
            // the bucket key is the primary key (id, region)
            BucketFunction buckets = new BucketFunction(List.of(Types.LongType.get(), Types.StringType.get()), 2);
            try (LakestreamWriter writer = new LakestreamWriter(table, warehouse.allocator())) {
                for (long id = 0; id < 7; id++) {
                    String region = id < 5 ? "eu" : "us";
                    writer.upsert(Map.of("id", id, "region", region, "score", 1));
                    written.merge(List.of("region=" + region, buckets.bucket(id, region)), 1L, Long::sum);
                }
                writer.commit();
            }
        }
        String warehouse = directory.toString();
        assertThat(run("status", "--warehouse", warehouse)).isZero();
        List<String> lines = stdout().lines().toList();
        String scores = section(lines, "db.scores");
        assertThat(scores)
                .contains(
                        "db.scores  (primary key [id, region], 2 buckets, log version 1, lake snapshot none)  7 records behind")
                .containsPattern("\n  partition +bucket +lake offset +log end +behind +oldest untiered\n");
        for (String region : List.of("eu", "us")) {
            for (int bucket = 0; bucket < 2; bucket++) {
                long end = written.getOrDefault(List.of("region=" + region, bucket), 0L);
                assertThat(scores)
                        .containsPattern("\n  region=%s +%d +0 +%d +%d +\\S+".formatted(region, bucket, end, end));
            }
        }
        // an unpartitioned log: no partition column
        assertThat(section(lines, "db.users")).contains("\n  bucket ").doesNotContain("partition");

        assertThat(run("tier", "--once", "--warehouse", warehouse)).isZero();
        assertThat(run("status", "--warehouse", warehouse)).isZero();
        scores = section(stdout().lines().toList(), "db.scores");
        assertThat(scores).contains("0 records behind");
        for (List<Object> log : written.keySet()) {
            long end = written.get(log);
            assertThat(scores).containsPattern("\n  %s +%d +%d +%d +0 +-".formatted(log.get(0), log.get(1), end, end));
        }
    }

    /** The lines of one table's status, from its heading to the next table's. */
    private static String section(List<String> lines, String table) {
        int start = lines.indexOf(lines.stream()
                .filter(line -> line.startsWith(table + "  ("))
                .findFirst()
                .orElseThrow());
        int end = start + 1;
        while (end < lines.size() && lines.get(end).startsWith("  ")) {
            end++;
        }
        return String.join("\n", lines.subList(start, end)) + "\n";
    }

    @Test
    void statusAndTierOnAWarehouseOnS3() throws Exception {
        try (S3MockServer s3 = S3MockServer.start("lakestream")) {
            String warehouse = "s3://lakestream/warehouse";
            String uri = "jdbc:sqlite:" + directory.resolve("catalog.db");
            CatalogConfig config = new CatalogConfig("jdbc", warehouse, Optional.of(uri), s3.catalogProperties());
            try (LakestreamCatalog catalog = LakestreamCatalog.open(config);
                    BufferAllocator allocator = new RootAllocator()) {
                catalog.createNamespace(TestingWarehouse.NAMESPACE);
                LakestreamTable table = catalog.createTable(
                        TableIdentifier.of(TestingWarehouse.NAMESPACE, "users"),
                        TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                                .primaryKey("id")
                                .bucketCount(2)
                                .build());
                try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                    for (long id = 0; id < 30; id++) {
                        writer.upsert(Map.of("id", id));
                    }
                    writer.commit();
                }
            }
            List<String> catalogOptions = new ArrayList<>(List.of("--warehouse", warehouse, "--catalog-uri", uri));
            s3.catalogProperties().forEach((name, value) -> {
                catalogOptions.add("--catalog-property");
                catalogOptions.add(name + "=" + value);
            });
            assertThat(run(with("status", catalogOptions))).as(stderr()).isZero();
            assertThat(stdout()).contains("db.users  (primary key [id], 2 buckets, log version 1, lake snapshot none)");
            assertThat(run(with("tier", catalogOptions, "--once"))).as(stderr()).isZero();
            assertThat(stdout()).contains("db.users: tiered 30 changes into lake snapshot");
            assertThat(run(with("status", catalogOptions))).isZero();
            assertThat(stdout()).contains("0 records behind");
        }
        assertThat(run("status", "--warehouse", "s3://lakestream/warehouse")).isEqualTo(1);
        assertThat(stderr()).contains("needs a URI");
        assertThat(run("status", "--catalog-property", "s3.endpoint")).isEqualTo(2);
        assertThat(stderr()).contains("--catalog-property takes name=value");
    }

    private static String[] with(String command, List<String> options, String... more) {
        List<String> arguments = new ArrayList<>();
        arguments.add(command);
        arguments.addAll(options);
        arguments.addAll(List.of(more));
        return arguments.toArray(String[]::new);
    }

    @Test
    void badArgumentsPrintUsageAndExitWithTwo() throws Exception {
        assertThat(run()).isEqualTo(2);
        assertThat(stderr()).contains("usage: lakestream <command>");
        assertThat(run("frobnicate")).isEqualTo(2);
        assertThat(stderr()).contains("error: unknown command 'frobnicate'");
        assertThat(run("tier", "--interval")).isEqualTo(2);
        assertThat(stderr()).contains("error: option --interval needs a value");
        assertThat(run("tier", "--interval", "soon", "--warehouse", directory.toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("--interval takes a duration such as 500ms, 5s or 2m, not 'soon'");
        assertThat(run("tier", "--once", "--interval", "5s")).isEqualTo(2);
        assertThat(stderr()).contains("--once and --interval exclude each other");
        assertThat(run("status", "--warehouse", directory.resolve("missing").toString()))
                .isEqualTo(2);
        assertThat(stderr()).contains("does not exist; run ./lakestream demo to create one");
    }

    private int run(String... args) throws Exception {
        out.reset();
        err.reset();
        return LakestreamCli.run(
                List.of(args),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String stdout() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
