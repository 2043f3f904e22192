package io.lakestream.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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
