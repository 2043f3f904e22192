package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Spark's stock Iceberg reader ({@code iceberg-spark-runtime-4.1_2.13}, in its own class loader) on
 * the lake of a Lakestream table returns exactly what our {@code lake} read mode returns: the same
 * rows and values, with tiered upserts and deletes (equality deletes) applied, whatever sits in the
 * log tail.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkStockIceberg {
    private static final String NS = "stock";
    private final SparkTesting testing = SparkTesting.get();
    private StockIcebergSpark stock;

    @BeforeAll
    void start() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
        stock = new StockIcebergSpark(testing.warehouseDirectory());
    }

    @AfterAll
    void stop() throws Exception {
        if (stock != null) {
            stock.close();
        }
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    /** Our lake read and the stock reader, both through SQL, side by side. */
    private void assertSameAsStock(String table, String columns, String where) {
        String tail = where.isEmpty() ? " ORDER BY id" : " WHERE " + where + " ORDER BY id";
        List<List<Object>> theirs =
                stock.query("SELECT " + columns + " FROM " + StockIcebergSpark.CATALOG + "." + NS + "." + table + tail);
        List<List<Object>> ours =
                rows(testing.sql("SELECT " + columns + " FROM ls." + NS + ".`" + table + "$lake`" + tail));
        assertThat(ours)
                .as("%s: the lake read mode vs the stock Iceberg reader (%s)", table, where)
                .isEqualTo(theirs);
        List<List<Object>> option = rows(testing.spark()
                .read()
                .option("read-mode", "lake")
                .table("ls." + NS + "." + table)
                .where(where.isEmpty() ? "true" : where)
                .selectExpr(columns.split(", "))
                .orderBy("id"));
        assertThat(option).as("%s: read-mode=lake as a read option", table).isEqualTo(theirs);
    }

    @Test
    void primaryKeyTableWithTieredUpsertsAndDeletes() {
        testing.sql("CREATE TABLE ls.stock.pk (id BIGINT, name STRING, score INT, amount DECIMAL(12, 2), "
                + "day DATE, at TIMESTAMP, local TIMESTAMP_NTZ, flag BOOLEAN, ratio DOUBLE) "
                + "TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4')");
        testing.sql(
                "INSERT INTO ls.stock.pk SELECT id, concat('n', id), CAST(id % 7 AS INT), CAST(id * 1.25 AS DECIMAL(12, 2)), "
                        + "date_add(DATE '2026-01-01', CAST(id AS INT)), TIMESTAMP '2026-11-29 10:00:00' + make_interval(0, 0, 0, 0, 0, 0, id), "
                        + "TIMESTAMP_NTZ '2026-11-29 10:00:00', id % 2 = 0, CASE WHEN id % 5 = 0 THEN NULL ELSE id / 3.0 END "
                        + "FROM range(1, 201)");
        tier("pk");
        // upserts and deletes, then tiered into the lake as equality deletes plus new data files
        testing.sql("INSERT INTO ls.stock.pk SELECT id, concat('u', id), 100, NULL, NULL, NULL, NULL, NULL, NULL "
                + "FROM range(1, 201, 10)");
        testing.sql("DELETE FROM ls.stock.pk WHERE id % 9 = 0");
        tier("pk");
        // a log tail the lake does not hold
        LakestreamTable table = SparkTables.load(NS, "pk");
        try (LakestreamWriter writer =
                new LakestreamWriter(table, testing.warehouse().allocator())) {
            writer.delete(Map.of("id", 2L));
            writer.commit();
        }
        testing.sql("INSERT INTO ls.stock.pk VALUES (3, 'tail', 1, 1.00, NULL, NULL, NULL, true, 0.5), "
                + "(1000, 'new', 2, NULL, NULL, NULL, NULL, NULL, NULL)");

        List<List<Object>> lake = rows(testing.sql("SELECT id FROM ls.stock.`pk$lake`"));
        assertThat(lake).hasSize(200 - 22).doesNotContain(List.of(9L)).contains(List.of(2L));
        assertThat(rows(testing.sql("SELECT count(*) FROM ls.stock.pk")))
                .as("the union differs from the lake")
                .containsExactly(List.of(200L - 22 - 1 + 1));

        assertSameAsStock("pk", "*", "");
        assertSameAsStock("pk", "id, name, score", "score >= 5");
        assertSameAsStock("pk", "name, id, amount", "name LIKE 'u%' OR id < 20");
    }

    @Test
    void appendOnlyTable() {
        testing.sql("CREATE TABLE ls.stock.events (id BIGINT NOT NULL, kind STRING, value INT) "
                + "TBLPROPERTIES ('bucket.key'='id', 'bucket.num'='3')");
        testing.sql(
                "INSERT INTO ls.stock.events SELECT id, CASE WHEN id % 3 = 0 THEN NULL ELSE concat('k', id % 4) END, "
                        + "CAST(id AS INT) FROM range(0, 150)");
        tier("events");
        testing.sql("INSERT INTO ls.stock.events SELECT id, 'late', 0 FROM range(150, 160)");
        tier("events");
        testing.sql("INSERT INTO ls.stock.events VALUES (999, 'tail', 1)");

        assertThat(rows(testing.sql("SELECT count(*) FROM ls.stock.`events$lake`")))
                .containsExactly(List.of(160L));
        assertSameAsStock("events", "*", "");
        assertSameAsStock("events", "kind, id", "kind IS NULL OR value > 100");
    }

    /**
     * A lake partitioned by day, read by the stock reader through Spark's Iceberg catalog with a filter on the day:
     * the rows equal our lake read, and the stock reader prunes by the lake's partition spec. Pruning is proven by
     * moving every data file of the other days away: the filtered read still succeeds (it never opens them), while a
     * full read fails.
     */
    @Test
    void partitionedLakeIsPrunedByTheStockReader() throws IOException {
        testing.sql(
                "CREATE TABLE ls.stock.daily (id BIGINT NOT NULL, ts TIMESTAMP NOT NULL, v STRING)"
                        + " PARTITIONED BY (days(ts)) TBLPROPERTIES ('primary-key'='id,ts', 'bucket.key'='id', 'bucket.num'='2')");
        testing.sql("INSERT INTO ls.stock.daily SELECT id, TIMESTAMP '2026-11-28 06:00:00' + make_interval(0, 0, 0,"
                + " CAST(id % 3 AS INT), 0, 0, 0), concat('v', id) FROM range(0, 60)");
        tier("daily");
        testing.sql("INSERT INTO ls.stock.daily VALUES (4, TIMESTAMP '2026-11-29 06:00:00', 'upserted')");
        testing.sql("DELETE FROM ls.stock.daily WHERE id = 6");
        tier("daily");
        // a log tail, which the lake and so the stock reader do not see
        testing.sql("INSERT INTO ls.stock.daily VALUES (1000, TIMESTAMP '2026-11-29 07:00:00', 'tail')");

        String day = "ts >= TIMESTAMP '2026-11-29 00:00:00' AND ts < TIMESTAMP '2026-11-30 00:00:00'";
        assertSameAsStock("daily", "id, ts, v", day);
        assertSameAsStock("daily", "*", "");

        Table lake = SparkTables.load(NS, "daily").lake();
        List<Path> otherDays = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                // the first partition field is ts_day: days since the epoch
                int epochDay = task.file().partition().get(0, Integer.class);
                if (epochDay != (int) LocalDate.of(2026, 11, 29).toEpochDay()) {
                    otherDays.add(Path.of(URI.create(task.file().location())));
                }
            }
        }
        assertThat(otherDays).as("data files of the two other days").hasSizeGreaterThanOrEqualTo(2);
        List<List<Object>> expected = stock.query(
                "SELECT id, v FROM %s.%s.daily WHERE %s ORDER BY id".formatted(StockIcebergSpark.CATALOG, NS, day));
        assertThat(expected).hasSize(20).contains(List.of(4L, "upserted")).doesNotContain(List.of(1000L, "tail"));
        for (Path file : otherDays) {
            Files.move(file, file.resolveSibling(file.getFileName() + ".moved"));
        }
        try {
            // the stock catalog keeps no cache across queries of the same table state; a fresh query plans again
            assertThat(stock.query("SELECT id, v FROM %s.%s.daily WHERE %s ORDER BY id"
                            .formatted(StockIcebergSpark.CATALOG, NS, day)))
                    .as("the filtered stock read opens only the day's files")
                    .isEqualTo(expected);
            assertThatThrownBy(() -> stock.count("SELECT * FROM %s.%s.daily".formatted(StockIcebergSpark.CATALOG, NS)))
                    .as("a full stock read needs the moved files");
        } finally {
            for (Path file : otherDays) {
                Files.move(file.resolveSibling(file.getFileName() + ".moved"), file);
            }
        }
    }
}
