package io.lakestream.trino;

import static java.util.stream.Collectors.joining;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.SchemaChange;
import io.lakestream.testing.LakeDeleteFiles;
import io.trino.Session;
import io.trino.spi.metrics.Metrics;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * Array, map and row columns and dereferences of rows ({@code r.c.e}) read from the lake by Trino's Parquet reader
 * ({@code LakeParquetFields}): on a split without a log tail (the fast path) and on a primary-key split merged with
 * its tail, with Iceberg equality and position deletes, nulls at every level, nesting in nesting, and struct fields
 * renamed and added after the lake files were written. Each read is checked against the rows the test wrote (a
 * {@code VALUES} list of them under the same projection, evaluated by Trino), against the union split reader, and
 * for the read path it took (the connector's split counters).
 */
final class TestLakestreamNestedParquetReads extends AbstractReadPathTest {
    private static final String R = "row(a bigint, b varchar, c row(d double, e varchar))";
    private static final String ITEM = "row(name varchar, qty integer)";
    private static final String COLUMNS = "id, tags, attrs, r, items, groups";
    private static final String COLUMN_TYPES = "id bigint, tags array(varchar), attrs map(varchar, integer), r " + R
            + ", items array(" + ITEM + "), groups map(varchar, array(bigint))";

    /** Projections read in every test: whole nested columns, dereferences at each depth, a row next to its field. */
    private static final List<String> PROJECTIONS = List.of(
            COLUMNS,
            "id, r.a, r.c.e",
            "id, r.c, r.b",
            "id, r, r.c.d",
            "r.c.e",
            "id, items, element_at(groups, 'g'), tags");

    /**
     * Row {@code id} as written in generation {@code gen} (a later version of the key): each id modulo 6 has nulls
     * at another level (a null or empty collection, a null element or map value, a null row, a null field, a null
     * nested row, a null leaf in a nested row, a null row inside an array).
     */
    private static String row(long id, int gen) {
        String v = id + "_" + gen;
        int kind = (int) (id % 6);
        String tags = switch (kind) {
            case 1 -> "NULL";
            case 2 -> "ARRAY['t%s', NULL]".formatted(v);
            case 3 -> "ARRAY[]";
            default -> "ARRAY['t%s', 'u']".formatted(v);
        };
        String attrs = switch (kind) {
            case 1 -> "MAP()";
            case 2 -> "MAP(ARRAY['k'], ARRAY[NULL])";
            case 3 -> "NULL";
            default -> "MAP(ARRAY['k', 'm'], ARRAY[%s, %s])".formatted(id, gen);
        };
        String r = switch (kind) {
            case 1 -> "NULL";
            case 2 -> "ROW(NULL, 'b%s', NULL)".formatted(v);
            case 3 -> "ROW(%s, NULL, ROW(NULL, 'e%s'))".formatted(id * 10 + gen, v);
            case 4 -> "ROW(%s, 'b%s', ROW(%s.5, NULL))".formatted(id * 10 + gen, v, id);
            default -> "ROW(%s, 'b%s', ROW(%s.25, 'e%s'))".formatted(id * 10 + gen, v, id, v);
        };
        String items = switch (kind) {
            case 1 -> "NULL";
            case 2 -> "ARRAY[ROW('i%s', 1), NULL, ROW(NULL, 3)]".formatted(v);
            case 3 -> "ARRAY[]";
            default -> "ARRAY[ROW('i%s', %s)]".formatted(v, gen);
        };
        String groups = switch (kind) {
            case 1 -> "MAP()";
            case 2 -> "MAP(ARRAY['g', 'h'], ARRAY[ARRAY[BIGINT '%s', NULL], NULL])".formatted(id);
            case 3 -> "NULL";
            default -> "MAP(ARRAY['g'], ARRAY[ARRAY[BIGINT '%s', %s]])".formatted(id, gen);
        };
        return "(BIGINT '%s', CAST(%s AS array(varchar)), CAST(%s AS map(varchar, integer)), CAST(%s AS %s),"
                        .formatted(id, tags, attrs, r, R)
                + " CAST(%s AS array(%s)), CAST(%s AS map(varchar, array(bigint))))".formatted(items, ITEM, groups);
    }

    private static String values(Map<Long, String> rows) {
        return "VALUES " + String.join(", ", rows.values());
    }

    private void write(String table, Map<Long, String> oracle, long from, long to, int gen) {
        List<String> rows = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            oracle.put(id, row(id, gen));
            rows.add(row(id, gen));
        }
        assertUpdate("INSERT INTO " + table + " VALUES " + String.join(", ", rows), rows.size());
    }

    /** The projection of {@code from} equals the same projection of the rows written. */
    private void assertRows(String from, String projection, Map<Long, String> oracle, String columnNames) {
        String sql = "SELECT " + projection + " FROM " + from;
        assertThat(query(sql))
                .as(sql)
                .matches("SELECT " + projection + " FROM (" + values(oracle) + ") AS w(" + columnNames + ")");
    }

    /** {@link #assertRows}, and every split of the read was read by Trino's Parquet reader; returns its metrics. */
    private Metrics assertRowsOnParquetReader(
            String from, String projection, Map<Long, String> oracle, String columnNames) {
        assertRows(from, projection, oracle, columnNames);
        return assertReadByTrinoParquetReader("SELECT " + projection + " FROM " + from);
    }

    @Test
    void primaryKeyTableMergesNestedColumnsOnTheParquetReadersPages() {
        String table = "nested_pk";
        assertUpdate(
                "CREATE TABLE " + table + " (" + COLUMN_TYPES + ") WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Map<Long, String> oracle = new TreeMap<>();
        write(table, oracle, 1, 24, 0);
        tables.tier(table);
        // a first tail, tiered: new versions and deletes of lake rows become Iceberg equality deletes
        write(table, oracle, 1, 8, 1);
        assertUpdate("DELETE FROM " + table + " WHERE id IN (9, 10)", 2);
        oracle.remove(9L);
        oracle.remove(10L);
        tables.tier(table);
        assertThat(Long.parseLong(
                        tables.load(table).lake().currentSnapshot().summary().getOrDefault("total-delete-files", "0")))
                .isPositive();
        // the log tail the reads merge: new versions of lake rows, a delete, a new key
        write(table, oracle, 2, 3, 2);
        write(table, oracle, 11, 11, 2);
        write(table, oracle, 30, 30, 2);
        assertUpdate("DELETE FROM " + table + " WHERE id = 4", 1);
        oracle.remove(4L);

        for (String projection : PROJECTIONS) {
            Metrics metrics = assertRowsOnParquetReader(table, projection, oracle, COLUMNS);
            assertThat(count(metrics, LakestreamMetrics.PARQUET_MERGE_SPLITS))
                    .as(projection)
                    .isPositive();
        }
        assertSameOnBothPaths("SELECT " + COLUMNS + " FROM " + table);
        assertSameOnBothPaths("SELECT id, r.c.e, r.a FROM " + table);
        assertSameCountersOnBothPaths("SELECT id, r.c.e FROM " + table);
        // a filter on a field (pruning, applied by Trino) and the lake view
        String filtered = "SELECT id, r.b FROM " + table + " WHERE r.a BETWEEN 100 AND 200";
        assertThat(query(filtered))
                .matches("SELECT id, r.b FROM (" + values(oracle) + ") AS w(" + COLUMNS
                        + ") WHERE r.a BETWEEN 100 AND 200");
        assertReadByTrinoParquetReader(filtered);
        assertReadByTrinoParquetReader("SELECT id, r.c.e, items FROM \"" + table + "$lake\"");
        // dereference pushdown reads less from the lake files on this path too: r.c.e's column chunks, not r's
        String lakeField = "SELECT r.c.e FROM \"" + table + "$lake\"";
        assertThat(physicalInputBytes(getSession(), lakeField))
                .isLessThan(
                        physicalInputBytes(LakestreamQueryRunner.withoutProjectionPushdown(getSession()), lakeField));
        // the limit hint stops a split in its lake rows
        assertThat(computeActual("SELECT r.c.e FROM " + table + " LIMIT 3").getRowCount())
                .isEqualTo(3);
    }

    @Test
    void appendOnlyLakeFilesWithPositionDeletesOnTheFastPath() {
        String table = "nested_append";
        assertUpdate("CREATE TABLE " + table + " (" + COLUMN_TYPES.replaceFirst("id bigint", "id bigint NOT NULL")
                + ") WITH (bucket_key = ARRAY['id'], bucket_count = 1)");
        Map<Long, String> oracle = new TreeMap<>();
        write(table, oracle, 1, 24, 0);
        tables.tier(table);
        Table lake = tables.load(table).lake();
        List<DataFile> files = LakeDeleteFiles.dataFiles(lake);
        assertThat(files).hasSize(1);
        List<Object> ids = LakeDeleteFiles.valuesInFileOrder(lake, files.getFirst(), "id");
        // rows 0, 7 and 20 of the lake file, as another engine's merge-on-read DELETE writes them
        LakeDeleteFiles.writePositionDeletes(lake, files.getFirst(), List.of(0L, 7L, 20L));
        List.of(0, 7, 20).forEach(row -> oracle.remove((Long) ids.get(row)));
        write(table, oracle, 25, 28, 0);

        Map<Long, String> lakeRows = new TreeMap<>(oracle);
        lakeRows.keySet().removeIf(id -> id > 24);
        for (String projection : List.of(COLUMNS, "id, r.a, r.c.e", "id, r, r.c.d")) {
            assertRows(table, projection, oracle, COLUMNS);
            // the lake file's splits on the fast path; the log's own splits have no lake file to read
            assertThat(fastPathSplits("SELECT " + projection + " FROM " + table))
                    .as(projection)
                    .isPositive();
            assertRowsOnParquetReader("\"" + table + "$lake\"", projection, lakeRows, COLUMNS);
        }
        assertSameOnBothPaths("SELECT " + COLUMNS + " FROM " + table);
    }

    @Test
    void structFieldsRenamedAndAddedAfterTheLakeFilesWereWritten() {
        String table = "nested_evolved";
        assertUpdate("CREATE TABLE " + table + " (id bigint, r row(a bigint, b varchar, c row(d double)),"
                + " items array(row(n varchar))) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate(
                "INSERT INTO " + table + " VALUES"
                        + " (1, CAST(ROW(10, 'b1', ROW(1.5)) AS row(a bigint, b varchar, c row(d double))),"
                        + " ARRAY[CAST(ROW('n1') AS row(n varchar))]),"
                        + " (2, CAST(NULL AS row(a bigint, b varchar, c row(d double))), NULL),"
                        + " (3, CAST(ROW(30, NULL, NULL) AS row(a bigint, b varchar, c row(d double))),"
                        + " ARRAY[NULL, CAST(ROW(NULL) AS row(n varchar))])",
                3);
        tables.tier(table);
        assertUpdate("ALTER TABLE " + table + " RENAME COLUMN r.a TO aa");
        assertUpdate("ALTER TABLE " + table + " ADD COLUMN r.z integer");
        assertUpdate("ALTER TABLE " + table + " ADD COLUMN r.c.f varchar");
        String evolved = "row(aa bigint, b varchar, c row(d double, f varchar), z integer)";
        String items = "array(row(n varchar))";
        Map<Long, String> oracle = new TreeMap<>();
        oracle.put(
                1L,
                "(BIGINT '1', CAST(ROW(10, 'b1', ROW(1.5, NULL), NULL) AS %s), CAST(ARRAY[ROW('n1')] AS %s))"
                        .formatted(evolved, items));
        oracle.put(2L, "(BIGINT '2', CAST(NULL AS %s), CAST(NULL AS %s))".formatted(evolved, items));
        oracle.put(
                3L,
                "(BIGINT '3', CAST(ROW(30, NULL, NULL, NULL) AS %s), CAST(ARRAY[NULL, ROW(NULL)] AS %s))"
                        .formatted(evolved, items));
        for (long id = 4; id <= 6; id++) {
            oracle.put(
                    id,
                    "(BIGINT '%s', CAST(ROW(%s, 'b%s', ROW(%s.5, 'f%s'), %s) AS %s), CAST(ARRAY[ROW('n%s')] AS %s))"
                            .formatted(id, id * 10, id, id, id, id % 3, evolved, id, items));
        }
        assertUpdate(
                "INSERT INTO " + table + " VALUES "
                        + oracle.entrySet().stream()
                                .filter(entry -> entry.getKey() >= 4)
                                .map(Map.Entry::getValue)
                                .collect(joining(", ")),
                3);
        tables.tier(table);
        // the tail: a new version of an old file's row in the new shape
        oracle.put(
                3L,
                "(BIGINT '3', CAST(ROW(31, 'b3', ROW(NULL, 'f3'), 7) AS %s), CAST(ARRAY[] AS %s))"
                        .formatted(evolved, items));
        assertUpdate("INSERT INTO " + table + " VALUES " + oracle.get(3L), 1);

        String columns = "id, r, items";
        for (String projection : List.of(
                "id, r, items",
                // fields the older file does not have: nulls (r.z alone reads one shape field of r)
                "id, r.aa, r.z",
                "id, r.c.f, r.c.d, r.b",
                "r.z")) {
            assertRowsOnParquetReader(table, projection, oracle, columns);
        }
        assertRowsOnParquetReader("\"" + table + "$lake\"", "id, r, items", lakeVersions(oracle), columns);
        assertRowsOnParquetReader("\"" + table + "$lake\"", "id, r.c, r.z", lakeVersions(oracle), columns);
        assertSameOnBothPaths("SELECT id, r, items FROM " + table);
        // a filter on a field the older file does not have skips that file (it holds no value of it)
        String added = "SELECT id FROM " + table + " WHERE r.z = 1";
        assertThat(query(added)).matches("VALUES BIGINT '4'");
        assertReadByTrinoParquetReader(added);
        assertThat(query("SELECT id FROM " + table + " WHERE r.z IS NULL")).matches("VALUES BIGINT '1', BIGINT '2'");
    }

    /**
     * Rows inside an array, a map's values and a row whose read fields an older lake file has none of (every field it
     * has was dropped after others were added): the file's list entries, map entries and row nulls are kept, the
     * added fields read as nulls, on both read paths and in the lake view.
     */
    @Test
    void nestedRowsWhoseReadFieldsAnOlderFileLacks() {
        String table = "nested_grown";
        assertUpdate("CREATE TABLE " + table + " (id bigint, arr array(row(a integer)), m map(varchar, row(a integer)),"
                + " s row(t row(a integer), x integer)) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate(
                "INSERT INTO " + table + " VALUES"
                        + " (1, ARRAY[ROW(1), NULL, ROW(NULL)], MAP(ARRAY['k', 'n'], ARRAY[ROW(1), NULL]),"
                        + " ROW(ROW(1), 5)),"
                        + " (2, NULL, NULL, NULL),"
                        + " (3, ARRAY[], MAP(), ROW(NULL, 6))",
                3);
        tables.tier(table);
        String added = "SELECT id, transform(arr, e -> e.b), transform_values(m, (k, v) -> v.b), s.t.b, s.t, s.x FROM "
                + table;
        // fields added to the rows: the older file still has a (Trino's ALTER TABLE reaches no map value: the
        // catalog's)
        alterTable(
                table,
                new SchemaChange.AddColumn(
                        List.of("m", "value", "b"),
                        Types.IntegerType.get(),
                        Optional.empty(),
                        new SchemaChange.Position.Last(),
                        false));
        for (String field : List.of("arr.element.b", "s.t.b")) {
            assertUpdate("ALTER TABLE " + table + " ADD COLUMN " + field + " integer");
        }
        assertThat(query(added)).matches(addedFields("row(a integer, b integer)", "ROW(1, NULL)", ""));
        assertReadByTrinoParquetReader(added);
        // ... and a dropped: the older file has none of the rows' fields
        alterTable(table, new SchemaChange.DropColumn(List.of("m", "value", "a")));
        for (String field : List.of("arr.element.a", "s.t.a")) {
            assertUpdate("ALTER TABLE " + table + " DROP COLUMN " + field);
        }
        String row = "row(b integer)";
        String lakeRows = "VALUES"
                + " (BIGINT '1', CAST(ARRAY[ROW(NULL), NULL, ROW(NULL)] AS array(%1$s)),"
                + " CAST(MAP(ARRAY['k', 'n'], ARRAY[ROW(NULL), NULL]) AS map(varchar, %1$s)),"
                + " CAST(ROW(ROW(NULL), 5) AS row(t %1$s, x integer))),"
                + " (2, NULL, NULL, NULL),"
                + " (3, CAST(ARRAY[] AS array(%1$s)), CAST(MAP() AS map(varchar, %1$s)),"
                + " CAST(ROW(NULL, 6) AS row(t %1$s, x integer)))";
        String whole = "SELECT id, arr, m, s FROM ";
        assertThat(query(whole + table)).matches(lakeRows.formatted(row));
        assertReadByTrinoParquetReader(whole + table);
        assertThat(query(whole + "\"" + table + "$lake\"")).matches(lakeRows.formatted(row));
        assertSameOnBothPaths(whole + table);
        // a tail in the new shape, merged with the older file's rows
        assertUpdate(
                "INSERT INTO " + table + " VALUES (4, ARRAY[ROW(40)], MAP(ARRAY['k'], ARRAY[ROW(41)]),"
                        + " ROW(ROW(42), 7))",
                1);
        String merged = "SELECT id, transform(arr, e -> e.b), transform_values(m, (k, v) -> v.b), s.t.b, s.t, s.x"
                + " FROM " + table;
        assertThat(query(merged))
                .matches(
                        addedFields(
                                "row(b integer)",
                                "ROW(NULL)",
                                ", (4, ARRAY[40], MAP(ARRAY[VARCHAR 'k'], ARRAY[41]), 42, CAST(ROW(42) AS row(b integer)), 7)"));
        assertReadByTrinoParquetReader(merged);
        assertSameOnBothPaths(merged);
    }

    /**
     * An enforced filter on the key skips pages of a one-row-group lake file by its column index; the nested columns'
     * readers skip the same rows (pages of 100 rows: the nested columns' pages hold other row ranges than the key's).
     */
    @Test
    void nestedColumnsOfPagesSkippedByTheColumnIndex() {
        String table = "nested_paged";
        long rows = 5000;
        assertUpdate("CREATE TABLE " + table + " (id bigint, r row(a bigint, b varchar), tags array(varchar))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        tables.load(table)
                .lake()
                .updateProperties()
                .set("write.parquet.page-row-limit", "100")
                .commit();
        String written = "SELECT x AS id, CAST(ROW(x * 3, 'b' || CAST(x AS varchar)) AS row(a bigint, b varchar)) AS r,"
                + " IF(x % 7 = 0, NULL, repeat(CAST(x AS varchar), CAST(x % 4 AS integer))) AS tags"
                + " FROM UNNEST(sequence(1, " + rows + ")) t(x)";
        assertUpdate("INSERT INTO " + table + " " + written, rows);
        tables.tier(table);

        String sql = "SELECT id, r.b, tags, r FROM " + table + " WHERE id BETWEEN 2000 AND 2020";
        assertThat(query(sql)).matches("SELECT id, r.b, tags, r FROM (" + written + ") WHERE id BETWEEN 2000 AND 2020");
        assertSameOnBothPaths(sql);
        Metrics metrics = scanMetrics(getSession(), sql);
        assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(1);
        assertThat(count(metrics, LakestreamMetrics.LAKE_ROWS)).isLessThan(rows / 4);
    }

    /** Changes the table through the catalog; the SQL statement after it makes the connector forget the table. */
    private void alterTable(String table, SchemaChange change) {
        tables.catalog().alterTable(TableIdentifier.of(LakestreamQueryRunner.SCHEMA, table), List.of(change));
    }

    /**
     * The rows of {@link #nestedRowsWhoseReadFieldsAnOlderFileLacks}'s query of the added fields: the older file's rows
     * with {@code t} (of type {@code tType}) in row 1 as {@code t1}, then {@code more}.
     */
    private static String addedFields(String tType, String t1, String more) {
        return ("VALUES (BIGINT '1', CAST(ARRAY[NULL, NULL, NULL] AS array(integer)),"
                        + " CAST(MAP(ARRAY['k', 'n'], ARRAY[NULL, NULL]) AS map(varchar, integer)), CAST(NULL AS integer),"
                        + " CAST(%2$s AS %1$s), 5),"
                        + " (2, NULL, NULL, NULL, NULL, NULL),"
                        + " (3, CAST(ARRAY[] AS array(integer)), CAST(MAP() AS map(varchar, integer)), NULL, NULL, 6)%3$s")
                .formatted(tType, t1, more);
    }

    private long physicalInputBytes(Session session, String sql) {
        long[] bytes = new long[1];
        assertQueryStats(
                session,
                sql,
                stats -> bytes[0] = stats.getPhysicalInputDataSize().toBytes(),
                rows -> {});
        assertThat(bytes[0]).as(sql).isPositive();
        return bytes[0];
    }

    /** The lake's versions of {@link #structFieldsRenamedAndAddedAfterTheLakeFilesWereWritten}'s rows: 3 is tiered. */
    private static Map<Long, String> lakeVersions(Map<Long, String> oracle) {
        Map<Long, String> lake = new TreeMap<>(oracle);
        lake.put(
                3L,
                "(BIGINT '3', CAST(ROW(30, NULL, NULL, NULL) AS %s), CAST(ARRAY[NULL, ROW(NULL)] AS %s))"
                        .formatted(
                                "row(aa bigint, b varchar, c row(d double, f varchar), z integer)",
                                "array(row(n varchar))"));
        return lake;
    }
}
