package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.tiering.parquet.ColumnarParquetSettings;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.junit.jupiter.api.Test;

/**
 * A smoke run of {@link WriterGainBenchmark} on a few rows; the measurement itself is a program. It asserts what a
 * run must produce whatever the machine's speed: every tiered lake, of either writer, holds exactly the rows the
 * benchmark wrote, in Parquet files parquet-mr opens, and the result table has a finite positive ratio per table
 * kind. No timing is asserted.
 */
class TestWriterGainBenchmark {
    private static final int ROWS = 20_000;
    private static final int BUCKETS = 2;
    private static final int REPEATS = 1;

    @Test
    void theIcebergSideIsIcebergsWriter() {
        assertThat(ColumnarParquetSettings.of(WriterGainBenchmark.ICEBERG_WRITER, Map.of()))
                .as("the property that sends the benchmark's table to Iceberg's Parquet writer")
                .isEmpty();
    }

    @Test
    void runsOnAFewRows() throws Exception {
        AtomicInteger checked = new AtomicInteger();
        Map<String, WriterGainBenchmark.Medians> medians =
                WriterGainBenchmark.run(ROWS, BUCKETS, REPEATS, (table, primaryKey, iceberg, rows, buckets) -> {
                    String side = "%s table tiered by %s writer"
                            .formatted(
                                    primaryKey ? "primary-key" : "append-only", iceberg ? "Iceberg's" : "the columnar");
                    assertThat(ColumnarParquetSettings.of(table.lake().properties(), Map.of()))
                            .as("the columnar writer's settings for the %s", side)
                            .matches(settings -> settings.isPresent() != iceberg);
                    assertFilesReadable(table.lake(), side);
                    assertThat(differences(written(primaryKey, rows), lakeRows(table.lake(), side)))
                            .as("ids whose row in the lake of the %s differs from the row written", side)
                            .isEmpty();
                    checked.incrementAndGet();
                });

        // a warm-up and REPEATS measured repeats, each tiering both kinds of table with both writers
        assertThat(checked).hasValue((REPEATS + 1) * 2 * 2);
        assertThat(medians).containsOnlyKeys("append-only", "primary-key");
        medians.forEach((kind, median) -> {
            for (double ratio : new double[] {median.time(), median.processCpu(), median.writerThreadsCpu()}) {
                assertThat(ratio)
                        .as("a ratio of %s in %s", kind, median)
                        .isFinite()
                        .isPositive();
            }
        });
    }

    /**
     * The oracle: the rows the benchmark wrote (drawn again from its generator), folded by key for a primary-key
     * table (the last upsert of an id wins), id → (name, score).
     */
    private static Map<Long, List<Object>> written(boolean primaryKey, int rows) {
        Map<Long, List<Object>> expected = new HashMap<>();
        Iterator<Map<String, Object>> generated = TieringBenchmark.rows(rows, primaryKey, primaryKey ? rows / 2 : rows);
        int count = 0;
        while (generated.hasNext()) {
            Map<String, Object> row = generated.next();
            List<Object> previous = expected.put((Long) row.get("id"), List.of(row.get("name"), row.get("score")));
            assertThat(primaryKey || previous == null)
                    .as("ids of an append-only table are distinct")
                    .isTrue();
            count++;
        }
        assertThat(count).isEqualTo(rows);
        assertThat(expected).isNotEmpty();
        return expected;
    }

    /** The first ids (at most 10) whose rows differ, with the row written and the row in the lake. */
    private static List<String> differences(Map<Long, List<Object>> written, Map<Long, List<Object>> lake) {
        Set<Long> ids = new TreeSet<>(written.keySet());
        ids.addAll(lake.keySet());
        return ids.stream()
                .filter(id -> !Objects.equals(written.get(id), lake.get(id)))
                .limit(10)
                .map(id -> "id %s: written %s, lake %s".formatted(id, written.get(id), lake.get(id)))
                .toList();
    }

    /** The lake as Iceberg's own generic reader reads it (its deletes applied), id → (name, score). */
    private static Map<Long, List<Object>> lakeRows(Table lake, String side) throws IOException {
        lake.refresh();
        Map<Long, List<Object>> rows = new HashMap<>();
        try (CloseableIterable<Record> scan = IcebergGenerics.read(lake).build()) {
            for (Record row : scan) {
                assertThat(rows.put((Long) row.getField("id"), List.of(row.getField("name"), row.getField("score"))))
                        .as("id %s read once from the %s", row.getField("id"), side)
                        .isNull();
            }
        }
        return rows;
    }

    /** Every data file of the lake opens in parquet-mr and its footer holds the rows the lake's metadata says. */
    private static void assertFilesReadable(Table lake, String side) throws IOException {
        lake.refresh();
        List<DataFile> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            tasks.forEach(task -> files.add(task.file()));
        }
        assertThat(files).as("data files of the %s", side).isNotEmpty();
        for (DataFile file : files) {
            try (ParquetFileReader reader = ParquetFileReader.open(
                    HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(file.location()), new Configuration()))) {
                assertThat(reader.getRecordCount())
                        .as("rows in the footer of %s of the %s", file.location(), side)
                        .isEqualTo(file.recordCount())
                        .isPositive();
            }
        }
    }
}
