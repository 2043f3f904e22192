package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.FilterExec;
import org.apache.spark.sql.execution.SparkPlan;
import org.apache.spark.sql.execution.datasources.v2.BatchScanExec;
import scala.jdk.javaapi.CollectionConverters;

/** Test helpers around tables of the shared session: Lakestream handles, scan metrics, staged files. */
final class SparkTables {
    private SparkTables() {}

    static LakestreamTable load(String namespace, String name) {
        return SparkTesting.get().warehouse().catalog().loadTable(TableIdentifier.of(Namespace.of(namespace), name));
    }

    static long logVersion(String namespace, String name) {
        return load(namespace, name).log().latestSnapshot().version();
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
