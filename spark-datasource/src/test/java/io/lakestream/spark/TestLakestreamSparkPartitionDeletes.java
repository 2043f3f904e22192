package io.lakestream.spark;

import static io.lakestream.spark.SparkTesting.rows;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.StringJoiner;
import org.apache.iceberg.DataOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotSummary;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * {@code DELETE FROM t WHERE day = DATE '...'} through Spark on a table partitioned by {@code day} with a
 * per-(partition, bucket) log is Spark's metadata-only delete ({@code SupportsDeleteV2}): no log commit, one lake
 * snapshot of operation {@code delete} that adds no file; union and {@code t$lake} reads equal an oracle of the rows
 * the test wrote. A condition that is not whole partitions stays Spark's row-level DELETE (a log commit), exact too.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TestLakestreamSparkPartitionDeletes {
    private static final String NS = "pdel";
    private static final long SEED = Long.getLong("lakestream.test.seed", 21L);
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 28);
    private final SparkTesting testing = SparkTesting.get();

    @BeforeAll
    void createNamespace() {
        testing.sql("CREATE NAMESPACE IF NOT EXISTS ls." + NS);
    }

    @Test
    void primaryKeyTable() {
        create("pk_days", true);
        Random random = new Random(SEED);
        Map<List<Object>, List<Object>> oracle = new HashMap<>();
        upsert("pk_days", random, 40, oracle);
        tier("pk_days");
        upsert("pk_days", random, 30, oracle);

        assertPartitionDelete("pk_days", "day = DATE '2026-11-29'");
        oracle.keySet().removeIf(key -> key.get(1).equals(FIRST_DAY.plusDays(1).toString()));
        assertReads("pk_days", oracle.values(), false);
        upsert("pk_days", random, 20, oracle);

        // not whole partitions: Spark's row-level DELETE, through the log
        long logVersion = SparkTables.logVersion(NS, "pk_days");
        testing.sql("DELETE FROM ls.pdel.pk_days WHERE day = DATE '2026-11-28' AND id < 8");
        oracle.keySet().removeIf(key -> key.get(1).equals(FIRST_DAY.toString()) && (long) key.get(0) < 8);
        assertThat(SparkTables.logVersion(NS, "pk_days")).isEqualTo(logVersion + 1);
        assertReads("pk_days", oracle.values(), false);

        tier("pk_days");
        assertReads("pk_days", oracle.values(), true);
    }

    @Test
    void appendOnlyTable() {
        create("ao_days", false);
        Random random = new Random(SEED + 1);
        List<List<Object>> oracle = new ArrayList<>();
        append("ao_days", random, 40, oracle);
        tier("ao_days");
        append("ao_days", random, 30, oracle);

        assertPartitionDelete("ao_days", "day IN (DATE '2026-11-28', DATE '2026-11-30')");
        oracle.removeIf(row -> !row.get(1).equals(FIRST_DAY.plusDays(1).toString()));
        assertReads("ao_days", oracle, false);
        append("ao_days", random, 20, oracle);
        assertThatThrownBy(() -> testing.sql("DELETE FROM ls.pdel.ao_days WHERE day = DATE '2026-11-29' AND id < 8"))
                .hasMessageContaining("append-only table");

        tier("ao_days");
        assertReads("ao_days", oracle, true);

        // without a condition: every partition, still one lake commit
        assertPartitionDelete("ao_days", "true");
        assertReads("ao_days", List.of(), true);
    }

    /** The DELETE commits no change to the log (only its marker) and one lake snapshot that only removes files. */
    private void assertPartitionDelete(String table, String where) {
        long logVersion = SparkTables.logVersion(NS, table);
        LakestreamTable before = SparkTables.load(NS, table);
        testing.sql("DELETE FROM ls.pdel.%s WHERE %s".formatted(table, where));
        LakestreamTable after = SparkTables.load(NS, table);
        assertThat(after.log().latestSnapshot().version())
                .as("a partition delete writes one log commit: its empty marker")
                .isEqualTo(logVersion + 1);
        assertThat(after.log().latestSnapshot().endOffsets())
                .as("the marker adds no change")
                .isEqualTo(before.log().snapshot(logVersion).endOffsets());
        Snapshot snapshot = after.lake().currentSnapshot();
        assertThat(snapshot.parentId())
                .isEqualTo(before.lake().currentSnapshot().snapshotId());
        assertThat(snapshot.operation()).isEqualTo(DataOperations.DELETE);
        assertThat(snapshot.summary())
                .containsKey(SnapshotSummary.DELETED_FILES_PROP)
                .doesNotContainKeys(SnapshotSummary.ADDED_FILES_PROP, SnapshotSummary.ADDED_DELETE_FILES_PROP);
    }

    private void assertReads(String table, Collection<List<Object>> oracle, boolean tiered) {
        String select = "SELECT id, CAST(day AS STRING), score FROM ls.pdel.%s";
        assertThat(rows(testing.sql(select.formatted(table))))
                .as("seed %s (-Dlakestream.test.seed)", SEED)
                .containsExactlyInAnyOrderElementsOf(oracle);
        if (tiered) {
            assertThat(rows(testing.sql(select.formatted("`" + table + "$lake`"))))
                    .containsExactlyInAnyOrderElementsOf(oracle);
        }
    }

    private void create(String name, boolean primaryKey) {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "day", Types.DateType.get()),
                Types.NestedField.optional(3, "score", Types.IntegerType.get()));
        TableSpec.Builder spec = TableSpec.builder(schema);
        spec = primaryKey ? spec.primaryKey("id", "day") : spec.bucketKey("id");
        testing.warehouse()
                .catalog()
                .createTable(
                        TableIdentifier.of(Namespace.of(NS), name),
                        spec.bucketCount(2)
                                .partitioning(List.of("day"))
                                .partitionedLog(true)
                                .build());
    }

    private void tier(String name) {
        testing.tiering().tier(SparkTables.load(NS, name));
    }

    private void upsert(String table, Random random, int rows, Map<List<Object>, List<Object>> oracle) {
        // the last row of each key: an INSERT of two rows of one key has no defined order
        Map<List<Object>, List<Object>> written = new LinkedHashMap<>();
        randomRows(random, rows, 20).forEach(row -> written.put(List.of(row.get(0), row.get(1)), row));
        oracle.putAll(written);
        insert(table, new ArrayList<>(written.values()));
    }

    private void append(String table, Random random, int rows, List<List<Object>> oracle) {
        List<List<Object>> written = randomRows(random, rows, 1_000);
        oracle.addAll(written);
        insert(table, written);
    }

    /** Rows {@code (id, day, score)} over three days, the day as its string. */
    private static List<List<Object>> randomRows(Random random, int count, int ids) {
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(List.of(
                    (long) random.nextInt(ids),
                    FIRST_DAY.plusDays(random.nextInt(3)).toString(),
                    random.nextInt(1000)));
        }
        return rows;
    }

    private void insert(String table, List<List<Object>> rows) {
        StringJoiner values = new StringJoiner(", ");
        for (List<Object> row : rows) {
            values.add("(%s, DATE '%s', %s)".formatted(row.get(0), row.get(1), row.get(2)));
        }
        testing.sql("INSERT INTO ls.pdel.%s VALUES %s".formatted(table, values));
    }
}
