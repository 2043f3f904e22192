package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
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
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code DELETE FROM t WHERE day = DATE '...'} on a table partitioned by {@code day} with a per-(partition, bucket)
 * log is one lake commit (no log commit, a lake snapshot of operation {@code delete} that adds no file), and reads
 * (union, {@code $lake}, Trino's stock Iceberg connector) equal an oracle of the rows the test wrote; a filter that
 * does not select whole partitions is the row-level DELETE (a log commit), exact too.
 */
final class TestLakestreamPartitionDeletes extends AbstractStockIcebergSqlTest {
    private static final long SEED = Long.getLong("lakestream.test.seed", 21L);
    private static final LocalDate FIRST_DAY = LocalDate.of(2026, 11, 28);

    /** Another coordinator on the same warehouse: its union reads pin a recent lake (kept an hour, never refreshed). */
    private static final String OTHER_COORDINATOR = "other_coordinator";

    @Override
    protected Map<String, String> connectorProperties() {
        return LakestreamQueryRunner.EXACT_LAKE_READS;
    }

    @BeforeAll
    void addOtherCoordinator() {
        getQueryRunner()
                .createCatalog(
                        OTHER_COORDINATOR,
                        LakestreamConnectorFactory.CONNECTOR_NAME,
                        Map.of(
                                "lakestream.catalog.type", "jdbc",
                                "lakestream.warehouse", warehouse.toString(),
                                "lakestream.metadata-cache.lake-refresh-interval", "1h",
                                "lakestream.metadata-cache.lake-max-staleness", "1h"));
    }

    /**
     * A coordinator that pinned a recent lake before a partition delete ran elsewhere does not read the deleted rows
     * from it: the delete's marker in the log, above that lake's log version, makes the read pin the catalog's lake.
     * Before, it read the deleted day's rows until its lake was older than {@code lake-max-staleness}.
     */
    @Test
    void anotherCoordinatorsRecentLakeDoesNotReadTheDeletedPartition() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "day", Types.DateType.get()),
                Types.NestedField.optional(3, "score", Types.IntegerType.get()));
        create("recent_days", TableSpec.builder(schema).primaryKey("id", "day"));
        Random random = new Random(SEED + 2);
        Map<List<Object>, List<Object>> oracle = new HashMap<>();
        upsert("recent_days", random, 40, oracle);
        tables.tier("recent_days");
        upsert("recent_days", random, 10, oracle);
        String other = OTHER_COORDINATOR + "." + LakestreamQueryRunner.SCHEMA + ".recent_days";
        // the other coordinator reads the table: it keeps this lake as its recent lake
        assertThat(rows("SELECT id, day, score FROM " + other)).containsExactlyInAnyOrderElementsOf(oracle.values());
        long catalogReads = otherCatalogReads();

        assertPartitionDelete("recent_days", "day = DATE '2026-11-29'");
        oracle.keySet().removeIf(key -> key.get(1).equals(FIRST_DAY.plusDays(1)));

        assertThat(rows("SELECT id, day, score FROM " + other))
                .as("a union read on another coordinator after the delete committed")
                .containsExactlyInAnyOrderElementsOf(oracle.values());
        assertThat(otherCatalogReads()).as("the read pinned the catalog's lake").isGreaterThan(catalogReads);
        // the lake it read from the catalog holds the delete: later reads pin it again without a catalog read
        catalogReads = otherCatalogReads();
        upsert("recent_days", random, 10, oracle);
        assertThat(rows("SELECT id, day, score FROM " + other)).containsExactlyInAnyOrderElementsOf(oracle.values());
        assertThat(otherCatalogReads()).isEqualTo(catalogReads);
    }

    private long otherCatalogReads() {
        return LakestreamQueryRunner.metadataReads((DistributedQueryRunner) getQueryRunner(), OTHER_COORDINATOR)
                .get("catalogReads");
    }

    @Test
    void primaryKeyTable() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.required(2, "day", Types.DateType.get()),
                Types.NestedField.optional(3, "score", Types.IntegerType.get()));
        create("pk_days", TableSpec.builder(schema).primaryKey("id", "day"));
        Random random = new Random(SEED);
        Map<List<Object>, List<Object>> oracle = new HashMap<>();
        upsert("pk_days", random, 40, oracle);
        tables.tier("pk_days");
        upsert("pk_days", random, 30, oracle);

        assertPartitionDelete("pk_days", "day = DATE '2026-11-29'");
        oracle.keySet().removeIf(key -> key.get(1).equals(FIRST_DAY.plusDays(1)));
        assertReads("pk_days", oracle.values(), false);

        // written after the delete, into the deleted day too: stays
        upsert("pk_days", random, 20, oracle);
        assertReads("pk_days", oracle.values(), false);

        // not whole partitions: the row-level DELETE, through the log
        long logVersion = logVersion("pk_days");
        getQueryRunner().execute(getSession(), "DELETE FROM pk_days WHERE day = DATE '2026-11-28' AND id < 8");
        oracle.keySet().removeIf(key -> key.get(1).equals(FIRST_DAY) && (long) key.get(0) < 8);
        assertThat(logVersion("pk_days")).isEqualTo(logVersion + 1);
        getQueryRunner().execute(getSession(), "DELETE FROM pk_days WHERE score > 900");
        oracle.values().removeIf(row -> row.get(2) != null && (int) row.get(2) > 900);
        assertThat(logVersion("pk_days")).isEqualTo(logVersion + 2);
        assertReads("pk_days", oracle.values(), false);

        tables.tier("pk_days");
        assertReads("pk_days", oracle.values(), true);
    }

    @Test
    void appendOnlyTable() {
        Schema schema = new Schema(
                Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "day", Types.DateType.get()),
                Types.NestedField.optional(3, "score", Types.IntegerType.get()));
        create("ao_days", TableSpec.builder(schema).bucketKey("id"));
        Random random = new Random(SEED + 1);
        List<List<Object>> oracle = new ArrayList<>();
        append("ao_days", random, 40, oracle);
        tables.tier("ao_days");
        append("ao_days", random, 30, oracle);

        assertPartitionDelete("ao_days", "day = DATE '2026-11-30'");
        oracle.removeIf(row -> row.get(1).equals(FIRST_DAY.plusDays(2)));
        assertReads("ao_days", oracle, false);
        append("ao_days", random, 20, oracle);

        // an append-only table has no row-level DELETE: a filter that is not whole partitions is refused as before
        assertQueryFails("DELETE FROM ao_days WHERE day = DATE '2026-11-28' AND id < 8", ".*append-only table.*");
        assertQueryFails("UPDATE ao_days SET score = 0 WHERE day = DATE '2026-11-28'", ".*append-only table.*");
        // several whole partitions in one commit
        assertPartitionDelete("ao_days", "day IN (DATE '2026-11-28', DATE '2026-11-30')");
        oracle.removeIf(row -> !row.get(1).equals(FIRST_DAY.plusDays(1)));
        assertReads("ao_days", oracle, false);

        tables.tier("ao_days");
        assertReads("ao_days", oracle, true);
    }

    /** The DELETE commits no change to the log (only its marker) and one lake snapshot that only removes files. */
    private void assertPartitionDelete(String table, String where) {
        long logVersion = logVersion(table);
        LakestreamTable before = tables.load(table);
        long lakeFiles =
                Long.parseLong(before.lake().currentSnapshot().summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP));
        getQueryRunner().execute(getSession(), "DELETE FROM %s WHERE %s".formatted(table, where));
        LakestreamTable after = tables.load(table);
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
                .doesNotContainKeys(SnapshotSummary.ADDED_FILES_PROP, SnapshotSummary.ADDED_DELETE_FILES_PROP);
        assertThat(Long.parseLong(snapshot.summary().get(SnapshotSummary.TOTAL_DATA_FILES_PROP)))
                .isLessThan(lakeFiles);
    }

    /** Union reads equal the oracle; {@code $lake} equals the stock connector's read, and the oracle once tiered. */
    private void assertReads(String table, Collection<List<Object>> oracle, boolean tiered) {
        String columns = "id, day, score";
        assertThat(rows("SELECT %s FROM %s".formatted(columns, table)))
                .as("seed %s (-Dlakestream.test.seed)", SEED)
                .containsExactlyInAnyOrderElementsOf(oracle);
        List<List<Object>> lake = rows("SELECT %s FROM \"%s$lake\"".formatted(columns, table));
        assertThat(rows("SELECT %s FROM iceberg.tests.%s".formatted(columns, table)))
                .containsExactlyInAnyOrderElementsOf(lake);
        if (tiered) {
            assertThat(lake).containsExactlyInAnyOrderElementsOf(oracle);
        }
    }

    private void create(String name, TableSpec.Builder spec) {
        tables.catalog()
                .createTable(
                        TableIdentifier.of(LakestreamQueryRunner.SCHEMA, name),
                        spec.bucketCount(2)
                                .partitioning(List.of("day"))
                                .partitionedLog(true)
                                .build());
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

    /** Rows {@code (id, day, score)} over three days; a primary-key table keeps the last row of a key. */
    private static List<List<Object>> randomRows(Random random, int count, int ids) {
        List<List<Object>> rows = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            rows.add(List.of((long) random.nextInt(ids), FIRST_DAY.plusDays(random.nextInt(3)), random.nextInt(1000)));
        }
        return rows;
    }

    private void insert(String table, List<List<Object>> rows) {
        StringJoiner values = new StringJoiner(", ");
        for (List<Object> row : rows) {
            values.add("(%s, DATE '%s', %s)".formatted(row.get(0), row.get(1), row.get(2)));
        }
        getQueryRunner().execute(getSession(), "INSERT INTO %s VALUES %s".formatted(table, values));
    }

    private List<List<Object>> rows(String sql) {
        return computeActual(sql).getMaterializedRows().stream()
                .map(MaterializedRow::getFields)
                .map(fields -> (List<Object>) new ArrayList<>(fields))
                .toList();
    }

    private long logVersion(String table) {
        return tables.load(table).log().latestSnapshot().version();
    }
}
