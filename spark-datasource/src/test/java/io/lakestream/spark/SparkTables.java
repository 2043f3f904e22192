package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Test helpers around tables of the shared session: Lakestream handles, tiering, scan metrics, staged
 * files.
 */
final class SparkTables {
    private SparkTables() {}

    static LakestreamTable load(String namespace, String name) {
        return SparkTesting.get().warehouse().catalog().loadTable(TableIdentifier.of(Namespace.of(namespace), name));
    }

    static long logVersion(String namespace, String name) {
        return load(namespace, name).log().latestSnapshot().version();
    }

    /** When the table's newest log version was committed (the log's own date of it). */
    static long commitMillis(String namespace, String name) {
        return load(namespace, name).log().latestSnapshot().committedAtMillis();
    }

    /**
     * A tiering service on the shared warehouse that compacts a bucket once it has {@code deleteFiles}
     * delete files or {@code smallFiles} small data files.
     */
    static TableTiering tiering(ExecutorService threads, int deleteFiles, int smallFiles) {
        TieringConfig config = TieringConfig.builder()
                .compactionDeleteFiles(deleteFiles)
                .compactionSmallFiles(smallFiles)
                .build();
        return new TableTiering(
                config, SparkTesting.get().warehouse().allocator(), threads, TieringHooks.NONE, Clock.systemUTC());
    }

    /** Tiers until the lake holds the whole log. */
    static void tierAll(TableTiering tiering, LakestreamTable table) {
        for (int round = 0; round < 100; round++) {
            TieringResult result = tiering.tier(table);
            if (result.outcome() == TieringResult.Outcome.UP_TO_DATE) {
                return;
            }
            if (result.outcome() != TieringResult.Outcome.TIERED) {
                throw new IllegalStateException("tiering " + table + " failed: " + result);
            }
        }
        throw new IllegalStateException("tiering " + table + " did not catch up");
    }

    /** The scan node of an executed query (the query must have run). */
    static BatchScanExec scan(Dataset<Row> frame) {
        SparkPlan plan = frame.queryExecution().executedPlan();
        List<SparkPlan> leaves = CollectionConverters.asJava(plan.collectLeaves());
        return leaves.stream()
                .filter(BatchScanExec.class::isInstance)
                .map(BatchScanExec.class::cast)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no batch scan in " + plan));
    }

    /** Filter nodes Spark kept in an executed plan (predicates it evaluates itself). */
    static long filtersAboveScan(Dataset<Row> frame) {
        SparkPlan plan = frame.queryExecution().executedPlan();
        return CollectionConverters.asJava(plan.collect(new scala.PartialFunction<SparkPlan, SparkPlan>() {
                    @Override
                    public boolean isDefinedAt(SparkPlan node) {
                        return node instanceof FilterExec;
                    }

                    @Override
                    public SparkPlan apply(SparkPlan node) {
                        return node;
                    }
                }))
                .size();
    }

    static long metric(Dataset<Row> frame, String name) {
        return scan(frame).metrics().apply(name).value();
    }

    /** {@link #metric}, or 0 when Spark answered without a scan (e.g. from a filter that is always false). */
    static long metricIfScanned(Dataset<Row> frame, String name) {
        List<SparkPlan> leaves = CollectionConverters.asJava(
                frame.queryExecution().executedPlan().collectLeaves());
        return leaves.stream().anyMatch(BatchScanExec.class::isInstance) ? metric(frame, name) : 0;
    }

    /** Segment files in the table's log directory, committed or not. */
    static long segmentFiles(String namespace, String name) {
        Path root =
                LocalLogFileSystem.toPath(load(namespace, name).log().paths().root());
        if (!Files.exists(root)) {
            return 0;
        }
        try (Stream<Path> files = Files.walk(root)) {
            return files.filter(file -> file.toString().endsWith(".arrow")).count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static void assertSegmentsUnchanged(String namespace, String name, long before) {
        assertThat(segmentFiles(namespace, name))
                .as("segment files of %s.%s (staged ones must be discarded)", namespace, name)
                .isEqualTo(before);
    }
}
