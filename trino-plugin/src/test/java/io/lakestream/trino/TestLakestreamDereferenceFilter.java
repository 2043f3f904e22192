package io.lakestream.trino;

import static java.util.stream.Collectors.toSet;
import static org.assertj.core.api.Assertions.assertThat;

import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.metadata.BlockMetaData;
import org.apache.parquet.io.LocalInputFile;
import org.junit.jupiter.api.Test;

/**
 * Filters on fields of row columns ({@code WHERE r.a = 5}, {@code r.c.e > 'x'}) prune lake data files (Iceberg
 * planning by the field's column metrics) and Parquet row groups; Trino still applies them to every row. The rows of
 * union, {@code $lake} and {@code $changes} reads of append-only and primary-key tables equal the rows the test wrote
 * filtered by Trino itself (the oracle is a {@code VALUES} list of them, filtered by the same {@code WHERE}), with
 * nulls at every level and a primary-key tail that replaces and deletes lake rows; lake files and row groups read are
 * counted by the read metrics, also after a field was renamed and one added.
 */
final class TestLakestreamDereferenceFilter extends AbstractReadPathTest {
    private static final String R = "row(a bigint, b varchar, c row(d integer, e varchar))";

    private static final List<String> FILTERS = List.of(
            "r.a = 15",
            "r.a BETWEEN 20 AND 45",
            "r.a IS NULL",
            "r.c.e >= 'e6'",
            "r.c.d IN (1, 3)",
            "r.b = 'b2' OR r.b IS NULL",
            "r.a = 17 AND id = 17",
            "r.c.d IS NULL");

    /** Row {@code id}'s {@code r}, with nulls at every level for some ids; {@code a} is {@code id + shift}. */
    private static String r(long id, long shift) {
        return switch ((int) (id % 10)) {
            case 1 -> "CAST(NULL AS " + R + ")";
            case 2 -> "CAST(ROW(NULL, 'b2', ROW(NULL, NULL)) AS " + R + ")";
            case 3 -> "CAST(ROW(%s, NULL, NULL) AS %s)".formatted(id + shift, R);
            default -> "CAST(ROW(%s, 'b%s', ROW(%s, 'e%s')) AS %s)".formatted(id + shift, id % 5, id % 7, id, R);
        };
    }

    /** The table's rows (and the lake's, and the log's changes) as the test wrote them: the oracle. */
    private static final class Written {
        final Map<Long, String> table = new LinkedHashMap<>();
        final Map<Long, String> lake = new LinkedHashMap<>();
        /** {@code id, r} of each log change; a delete carries the key alone. */
        final List<String> changes = new ArrayList<>();

        void upsert(long id, String r) {
            table.put(id, r);
            changes.add("(BIGINT '%s', %s)".formatted(id, r));
        }

        void delete(long id) {
            table.remove(id);
            changes.add("(BIGINT '%s', CAST(NULL AS %s))".formatted(id, R));
        }

        /** The lake holds the table as it is now (tiering moved every change into it). */
        void tiered() {
            lake.clear();
            lake.putAll(table);
        }
    }

    @Test
    void appendOnlyRowsEqualTheEngineFilter() {
        assertUpdate("CREATE TABLE filtered_append (id bigint NOT NULL, r " + R + ")"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        Written written = new Written();
        insert("filtered_append", written, 1, 30, 0);
        tables.tier("filtered_append");
        written.tiered();
        insert("filtered_append", written, 31, 50, 0);
        tables.tier("filtered_append");
        written.tiered();
        insert("filtered_append", written, 51, 70, 0);

        assertViewsEqualTheOracle("filtered_append", written);
    }

    @Test
    void primaryKeyRowsEqualTheEngineFilter() {
        assertUpdate(
                "CREATE TABLE filtered_pk (id bigint, r " + R + ") WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Written written = new Written();
        insert("filtered_pk", written, 1, 30, 0);
        tables.tier("filtered_pk");
        written.tiered();
        insert("filtered_pk", written, 31, 50, 0);
        tables.tier("filtered_pk");
        written.tiered();
        // the tail: new rows, new versions of lake rows that leave (15: a = 1015) or enter (44 -> a = 15) a filter's
        // range, and deletes of lake rows that match one (17, 45)
        insert("filtered_pk", written, 51, 70, 0);
        insert("filtered_pk", written, 15, 15, 1000);
        insert("filtered_pk", written, 44, 44, -29);
        insert("filtered_pk", written, 24, 26, 30);
        assertUpdate("DELETE FROM filtered_pk WHERE id IN (17, 45)", 2);
        written.delete(17);
        written.delete(45);

        assertViewsEqualTheOracle("filtered_pk", written);
    }

    /**
     * Two lake files of about ten row groups each ({@code r.a = id}, the first file 1..1000, the second 1001..2000): a
     * filter on {@code r.a} opens only the file whose metrics can match and reads only the row groups whose
     * statistics can, a primary-key tail's new versions and deletes are applied, and with the pushdown off every
     * file and row group is read. What can match is taken from the files' Parquet footers ({@link LakeRowGroups}).
     */
    @Test
    void lakeFilesAndRowGroupsPrunedByAField() throws IOException {
        for (boolean primaryKey : List.of(false, true)) {
            String table = primaryKey ? "counted_pk" : "counted_append";
            assertUpdate("CREATE TABLE " + table + " (id bigint NOT NULL, r row(a bigint, b varchar)) WITH ("
                    + (primaryKey ? "primary_key" : "bucket_key") + " = ARRAY['id'], bucket_count = 1)");
            smallRowGroups(table);
            insertSequence(table, 1, 1000);
            tables.tier(table);
            insertSequence(table, 1001, 2000);
            tables.tier(table);
            String expected = "VALUES 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160";
            if (primaryKey) {
                // key 150 leaves the range, key 1500 (of the other file) enters it, key 152 is deleted
                assertUpdate(
                        "INSERT INTO counted_pk VALUES (150, CAST(ROW(5000, 'x') AS row(a bigint, b varchar)))"
                                + ", (1500, CAST(ROW(155, 'x') AS row(a bigint, b varchar)))",
                        2);
                assertUpdate("DELETE FROM counted_pk WHERE id = 152", 1);
                expected = "VALUES 151, 153, 154, 155, 156, 157, 158, 159, 160, 1500";
            }
            String sql = "SELECT id FROM " + table + " WHERE r.a BETWEEN 150 AND 160";
            assertQuery(sql, expected);
            assertQuery(LakestreamQueryRunner.withoutProjectionPushdown(getSession()), sql, expected);

            LakeRowGroups lake = LakeRowGroups.of(tables.load(table).lake(), "r.a");
            assertThat(lake.files()).as(table).hasSize(2);
            LakeRowGroups matching = lake.overlapping(150, 160);
            assertThat(matching.files()).as(table).hasSize(1);
            Metrics pruned = scanMetrics(getSession(), sql);
            Metrics whole = scanMetrics(LakestreamQueryRunner.withoutProjectionPushdown(getSession()), sql);
            // a primary-key split holds the bucket's files; an append-only file is planned as a split per row group
            assertThat(count(whole, LakestreamMetrics.LAKE_FILES))
                    .as(table)
                    .isEqualTo(primaryKey ? 2 : lake.rowGroups());
            assertThat(count(pruned, LakestreamMetrics.LAKE_FILES))
                    .as(table)
                    .isEqualTo(
                            primaryKey ? 1 : lake.overlappingFilesOnly(150, 160).rowGroups());
            // id and r.a of the row groups that can match, against id, r.a and r.b of all of them
            assertThat(count(whole, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                    .as(table)
                    .isEqualTo(3L * lake.rowGroups());
            assertThat(count(pruned, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                    .as(table)
                    .isEqualTo(2L * matching.rowGroups());
            assertThat(matching.rowGroups()).as(table).isLessThan(lake.rowGroups() / 4);

            String lakeView = "SELECT id FROM \"" + table + "$lake\" WHERE r.a = 1700";
            assertQuery(lakeView, "VALUES 1700");
            Metrics lakeRead = scanMetrics(getSession(), lakeView);
            assertThat(count(lakeRead, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                    .as(table)
                    .isEqualTo(2L * lake.overlapping(1700, 1700).rowGroups());
        }
    }

    /**
     * Pruning goes by field id: a field renamed after the lake files were written prunes by their metrics under the
     * new name, and a field added since reads as NULL in the older files (whose row groups a filter on its values
     * skips, since the files do not hold it).
     */
    @Test
    void renamedAndAddedFieldsPruneByFieldId() throws IOException {
        assertUpdate("CREATE TABLE evolved (id bigint, r row(a bigint, b varchar))"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        smallRowGroups("evolved");
        insertSequence("evolved", 1, 1000);
        tables.tier("evolved");
        assertUpdate("ALTER TABLE evolved RENAME COLUMN r.a TO aa");
        assertUpdate("ALTER TABLE evolved ADD COLUMN r.z integer");
        assertUpdate(
                "INSERT INTO evolved SELECT x, CAST(ROW(x, 'b', x % 10) AS row(aa bigint, b varchar, z integer))"
                        + " FROM UNNEST(sequence(1001, 2000)) t(x)",
                1000);
        tables.tier("evolved");
        assertUpdate(
                "INSERT INTO evolved VALUES (2001, CAST(ROW(2001, 'b', 3) AS row(aa bigint, b varchar, z integer)))",
                1);

        String renamed = "SELECT id FROM evolved WHERE r.aa BETWEEN 150 AND 160";
        assertQuery(renamed, "VALUES 150, 151, 152, 153, 154, 155, 156, 157, 158, 159, 160");
        // the older file's footer names the field a, the newer one's aa: both are field r.aa's id
        LakeRowGroups byOldName = LakeRowGroups.of(tables.load("evolved").lake(), "r.a");
        LakeRowGroups byNewName = LakeRowGroups.of(tables.load("evolved").lake(), "r.aa");
        assertThat(byOldName.files()).hasSize(1);
        assertThat(byNewName.files()).hasSize(1);
        Metrics renamedRead = scanMetrics(getSession(), renamed);
        assertThat(count(renamedRead, LakestreamMetrics.LAKE_FILES)).isEqualTo(1);
        assertThat(count(renamedRead, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(2L * byOldName.overlapping(150, 160).rowGroups());

        String added = "SELECT id FROM evolved WHERE r.z = 3";
        assertThat(computeActual(added).getOnlyColumnAsSet())
                .isEqualTo(LongStream.concat(
                                LongStream.rangeClosed(1001, 2000).filter(id -> id % 10 == 3), LongStream.of(2001))
                        .boxed()
                        .collect(toSet()));
        // every row group of the newer file holds a 3; none of the older file holds r.z
        Metrics addedRead = scanMetrics(getSession(), added);
        assertThat(count(addedRead, LakestreamMetrics.LAKE_COLUMN_CHUNKS))
                .isEqualTo(2L
                        * LakeRowGroups.of(tables.load("evolved").lake(), "r.z").rowGroups());
        assertQuery("SELECT count(*), min(id), max(id) FROM evolved WHERE r.z IS NULL", "VALUES (1000, 1, 1000)");
    }

    /**
     * The value ranges of a bigint column's row groups in the lake's current data files, read from their Parquet
     * footers by column path: what the test expects a filter to read, independent of how the connector prunes.
     *
     * @param files per data file (that holds the column), the {@code [min, max]} of each of its row groups
     */
    private record LakeRowGroups(List<List<long[]>> files) {
        static LakeRowGroups of(Table lake, String path) throws IOException {
            List<List<long[]>> files = new ArrayList<>();
            try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    try (ParquetFileReader reader = ParquetFileReader.open(
                            new LocalInputFile(Path.of(URI.create(task.file().location()))))) {
                        List<long[]> rowGroups = new ArrayList<>();
                        for (BlockMetaData block : reader.getFooter().getBlocks()) {
                            block.getColumns().stream()
                                    .filter(column ->
                                            column.getPath().toDotString().equals(path))
                                    .findFirst()
                                    .ifPresent(column -> rowGroups.add(new long[] {
                                        ((Number) column.getStatistics().genericGetMin()).longValue(),
                                        ((Number) column.getStatistics().genericGetMax()).longValue()
                                    }));
                        }
                        if (!rowGroups.isEmpty()) {
                            files.add(rowGroups);
                        }
                    }
                }
            }
            return new LakeRowGroups(files);
        }

        long rowGroups() {
            return files.stream().mapToLong(List::size).sum();
        }

        /** The row groups whose range overlaps {@code [low, high]} (files without one left out). */
        LakeRowGroups overlapping(long low, long high) {
            return new LakeRowGroups(files.stream()
                    .map(file -> file.stream()
                            .filter(range -> range[0] <= high && range[1] >= low)
                            .toList())
                    .filter(file -> !file.isEmpty())
                    .toList());
        }

        /** All row groups of the files some row group of which overlaps {@code [low, high]}. */
        LakeRowGroups overlappingFilesOnly(long low, long high) {
            return new LakeRowGroups(files.stream()
                    .filter(file -> file.stream().anyMatch(range -> range[0] <= high && range[1] >= low))
                    .toList());
        }
    }

    private void smallRowGroups(String table) {
        // a row group per 100 rows: the writer checks the size every 100 rows, and any size is past one byte
        tables.load(table)
                .lake()
                .updateProperties()
                .set("write.parquet.row-group-size-bytes", "1")
                .commit();
    }

    private void insertSequence(String table, int from, int to) {
        assertUpdate(
                "INSERT INTO %s SELECT x, CAST(ROW(x, 'b') AS row(a bigint, b varchar)) FROM UNNEST(sequence(%s, %s)) t(x)"
                        .formatted(table, from, to),
                to - from + 1);
    }

    private void insert(String table, Written written, long from, long to, long shift) {
        List<String> rows = new ArrayList<>();
        for (long id = from; id <= to; id++) {
            written.upsert(id, r(id, shift));
            rows.add("(BIGINT '%s', %s)".formatted(id, r(id, shift)));
        }
        assertUpdate("INSERT INTO " + table + " VALUES " + String.join(", ", rows), rows.size());
    }

    /** Every filter on every view returns the rows written that Trino's own filter keeps (one query per filter). */
    private void assertViewsEqualTheOracle(String table, Written written) {
        Map<String, List<String>> views = Map.of(
                table,
                rows(written.table),
                "\"" + table + "$lake\"",
                rows(written.lake),
                "\"" + table + "$changes\"",
                written.changes);
        for (String filter : FILTERS) {
            List<String> actual = new ArrayList<>();
            List<String> oracle = new ArrayList<>();
            views.forEach((view, rows) -> {
                String columns = "SELECT '%s', id, r.a, r.b, r.c.d, r.c.e FROM ".formatted(view.replace("\"", ""));
                actual.add(columns + view + " WHERE " + filter);
                oracle.add(columns + "(VALUES " + String.join(", ", rows) + ") AS v(id, r) WHERE " + filter);
            });
            assertThat(query(String.join(" UNION ALL ", actual)))
                    .as(table + " WHERE " + filter)
                    .matches(String.join(" UNION ALL ", oracle));
        }
    }

    private static List<String> rows(Map<Long, String> rows) {
        return rows.entrySet().stream()
                .map(row -> "(BIGINT '%s', %s)".formatted(row.getKey(), row.getValue()))
                .toList();
    }
}
