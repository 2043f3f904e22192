package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.spi.metrics.Metrics;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.UpdateProperties;
import org.apache.iceberg.io.CloseableIterable;
import org.junit.jupiter.api.Test;

/**
 * Trino's Parquet reader skips pages of tiered files by their column indexes: files of one row group
 * (so only pages can be skipped) with pages of 100 rows, written by tiering's columnar writer and, for a
 * table with a {@code parquet.*} property, by Iceberg's Parquet writer. Both return the union split reader's
 * rows; a filter on the key, and filters on strings sharing a 40-byte prefix, skip most pages. Strings sharing a prefix longer than the
 * column index's 64-byte truncation have the same truncated bounds on every page: no writer's file lets a
 * reader skip pages by them (checked too, so that a change there shows).
 */
final class TestLakestreamPageSkipping extends AbstractReadPathTest {
    private static final String SHORT_PREFIX = "a-prefix-of-forty-bytes-shared-by-all-s-";
    private static final String LONG_PREFIX = "a-prefix-longer-than-the-column-index-truncation-".repeat(2);
    private static final long ROWS = 5000;

    @Test
    void columnIndexesOfTieredFilesSkipPages() {
        List<Long> columnar = lakeRowsRead("paged_columnar", false);
        List<Long> iceberg = lakeRowsRead("paged_iceberg", true);
        // the key and the 40-byte prefix: most pages skipped in either writer's file. Not compared row for row:
        // Trino's parallel writers put the inserted pages in the log in no fixed order, so where a key range
        // falls in the file's pages differs from run to run (TestPageIndexesMatchParquetMr compares the indexes)
        assertThat(iceberg.subList(0, 3)).allSatisfy(rows -> assertThat(rows).isLessThan(ROWS / 4));
        assertThat(columnar.subList(0, 3)).allSatisfy(rows -> assertThat(rows).isLessThan(ROWS / 4));
        // the prefix beyond the truncation: every page read
        assertThat(iceberg.get(3)).isEqualTo(ROWS);
        assertThat(columnar.get(3)).isEqualTo(ROWS);
    }

    /** The lake rows Trino read for each filter. */
    private List<Long> lakeRowsRead(String table, boolean icebergWriter) {
        assertUpdate("CREATE TABLE " + table
                + " (id bigint, s varchar, l varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        Table lake = tables.load(table).lake();
        UpdateProperties properties = lake.updateProperties().set("write.parquet.page-row-limit", "100");
        if (icebergWriter) {
            // parquet-mr's default: the same files, written by Iceberg's writer (docs/tiering.md)
            properties.set("parquet.columnindex.truncate.length", "64");
        }
        properties.commit();
        assertUpdate(
                ("INSERT INTO %s SELECT x, '%s' || lpad(CAST(x AS varchar), 5, '0'), '%s' || lpad(CAST(x AS varchar), 5, '0') "
                                + "FROM UNNEST(sequence(1, %d)) t(x)")
                        .formatted(table, SHORT_PREFIX, LONG_PREFIX, ROWS),
                ROWS);
        tables.tier(table);
        List<DataFile> files = dataFiles(lake);
        assertThat(files).hasSize(1);
        assertThat(files.getFirst().splitOffsets()).as("row groups").hasSize(1);

        List<Long> read = new ArrayList<>();
        for (String filter : List.of(
                "id BETWEEN 2000 AND 2020",
                "s BETWEEN '%s02000' AND '%s02020'".formatted(SHORT_PREFIX, SHORT_PREFIX),
                "s = '%s03333'".formatted(SHORT_PREFIX),
                "l = '%s03333'".formatted(LONG_PREFIX))) {
            String sql = "SELECT id, s FROM %s WHERE %s".formatted(table, filter);
            assertSameOnBothPaths(sql);
            Metrics metrics = scanMetrics(getSession(), sql);
            assertThat(count(metrics, LakestreamMetrics.FAST_PATH_SPLITS)).isEqualTo(1);
            read.add(count(metrics, LakestreamMetrics.LAKE_ROWS));
        }
        assertQuery(
                "SELECT count(*), min(id), max(id) FROM %s WHERE id BETWEEN 2000 AND 2020".formatted(table),
                "VALUES (21, 2000, 2020)");
        assertQuery("SELECT id FROM %s WHERE s = '%s03333'".formatted(table, SHORT_PREFIX), "VALUES 3333");
        assertQuery("SELECT id FROM %s WHERE l = '%s03333'".formatted(table, LONG_PREFIX), "VALUES 3333");
        return read;
    }

    private static List<DataFile> dataFiles(Table lake) {
        lake.refresh();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            return StreamSupport.stream(tasks.spliterator(), false)
                    .map(FileScanTask::file)
                    .toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
