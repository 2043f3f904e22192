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
import java.util.TreeMap;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The maintenance commands of {@code ./lakestream} ({@code compact}, {@code expire-snapshots}, {@code expire-log},
 * {@code remove-orphans}) through the CLI's entry point on an embedded warehouse: each does its job, the lake keeps
 * exactly the rows written, and bad arguments are usage errors.
 */
class TestMaintenanceCommands {
    @TempDir
    Path directory;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @Test
    void maintenanceCommandsKeepTheRows() throws Exception {
        String warehouse = directory.toString();
        Map<Long, Long> oracle = new TreeMap<>();
        try (TestingWarehouse testing = new TestingWarehouse(directory)) {
            LakestreamTable table = testing.createPrimaryKeyTable("users", 2);
            for (int round = 0; round < 4; round++) {
                try (LakestreamWriter writer = new LakestreamWriter(table, testing.allocator())) {
                    for (long id = round * 5L; id < round * 5L + 20; id++) {
                        writer.upsert(Map.of("id", id));
                        oracle.put(id, id);
                    }
                    writer.delete(Map.of("id", (long) round));
                    oracle.remove((long) round);
                    writer.commit();
                }
                assertThat(run("tier", "--once", "--warehouse", warehouse))
                        .as(stderr())
                        .isZero();
            }
        }
        assertThat(deleteFiles()).isPositive();

        assertThat(run("compact", "--table", "db.users", "--target-file-size", "1MB", "--warehouse", warehouse))
                .as(stderr())
                .isZero();
        assertThat(stdout()).contains("db.users: compacted buckets [0, 1] into lake snapshot");
        assertThat(deleteFiles()).isZero();
        assertThat(lakeIds()).isEqualTo(List.copyOf(oracle.keySet()));
        assertThat(run("compact", "--table", "db.users", "--warehouse", warehouse))
                .isZero();
        assertThat(stdout()).contains("db.users: nothing to compact");

        assertThat(run("expire-snapshots", "--table", "db.users", "--older-than", "0s", "--warehouse", warehouse))
                .as(stderr())
                .isZero();
        assertThat(stdout()).containsPattern("db.users: [1-9]\\d* lake snapshots expired, [1-9]\\d* files deleted");
        assertThat(lakeIds()).isEqualTo(List.copyOf(oracle.keySet()));

        assertThat(run("expire-log", "--table", "db.users", "--retention", "0s", "--warehouse", warehouse))
                .as(stderr())
                .isZero();
        assertThat(stdout()).containsPattern("db.users: [1-9]\\d* log segments removed");
        assertThat(run("remove-orphans", "--table", "db.users", "--warehouse", warehouse))
                .as(stderr())
                .isZero();
        assertThat(stdout()).containsPattern("db.users: \\d+ orphan files removed");
        assertThat(lakeIds()).isEqualTo(List.copyOf(oracle.keySet()));

        assertThat(run("compact", "--warehouse", warehouse)).isEqualTo(2);
        assertThat(stderr()).contains("the command needs --table namespace.table");
        assertThat(run("compact", "--table", "users", "--warehouse", warehouse)).isEqualTo(2);
        assertThat(stderr()).contains("--table takes namespace.table, not 'users'");
        assertThat(run("expire-snapshots", "--table", "db.users", "--retain-last", "0", "--warehouse", warehouse))
                .isEqualTo(1);
        assertThat(stderr()).contains("retain_last must be at least 1");
        assertThat(run("compact", "--table", "db.users", "--older-than", "1d", "--warehouse", warehouse))
                .isEqualTo(2);
        assertThat(stderr()).contains("unknown argument '--older-than'");
    }

    private long deleteFiles() {
        try (TestingWarehouse testing = new TestingWarehouse(directory)) {
            Table lake = testing.load("users").lake();
            return Long.parseLong(lake.currentSnapshot().summary().get(SnapshotSummary.TOTAL_DELETE_FILES_PROP));
        }
    }

    /** The lake's ids read by Iceberg's generic reader, in order. */
    private List<Long> lakeIds() throws Exception {
        try (TestingWarehouse testing = new TestingWarehouse(directory);
                CloseableIterable<Record> rows =
                        IcebergGenerics.read(testing.load("users").lake()).build()) {
            TreeMap<Long, Long> ids = new TreeMap<>();
            for (Record row : rows) {
                assertThat(ids.put((Long) row.getField("id"), 0L))
                        .as("duplicate id")
                        .isNull();
            }
            return List.copyOf(ids.keySet());
        }
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
