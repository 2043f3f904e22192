package io.lakestream.cli;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.plan.BucketFreshness;
import io.lakestream.plan.ReadMode;
import io.lakestream.plan.ReadOptions;
import io.lakestream.plan.ReadPlan;
import io.lakestream.plan.UnionReadPlanner;
import io.lakestream.table.LakestreamTable;
import java.io.PrintStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/** {@code lakestream status}: per table and bucket (and partition, for a log kept per (partition, bucket)), lake offset vs log end, records behind, age of the oldest untiered change. */
final class StatusCommand {
    private StatusCommand() {}

    static void run(LakestreamCatalog catalog, PrintStream out, Instant now) {
        boolean any = false;
        for (Namespace namespace : catalog.listNamespaces()) {
            for (TableIdentifier identifier : catalog.listTables(namespace)) {
                any = true;
                LakestreamTable table = catalog.loadTable(identifier);
                // the freshness of a plan does not depend on its mode; lake mode never fails on a lagging log
                ReadPlan plan = UnionReadPlanner.plan(table, ReadOptions.of(ReadMode.LAKE));
                long behind = plan.freshness().stream()
                        .mapToLong(BucketFreshness::recordsBehind)
                        .sum();
                out.printf(
                        "%s  (%s, %d buckets, log version %d, lake snapshot %s)  %,d records behind%n",
                        identifier,
                        table.definition().hasPrimaryKey()
                                ? "primary key " + table.definition().primaryKey()
                                : "append-only",
                        table.definition().bucketCount(),
                        plan.logVersion(),
                        plan.lakeSnapshotId().isPresent()
                                ? Long.toString(plan.lakeSnapshotId().getAsLong())
                                : "none",
                        behind);
                printLogs(out, table.log().isPartitionedLog(), plan.freshness(), now);
            }
        }
        if (!any) {
            out.println("no Lakestream tables in this warehouse");
        }
    }

    /**
     * One row per log: per bucket, or per (partition, bucket) with the partition path first for a table whose log is
     * kept per partition and bucket (the column is as wide as its longest path).
     */
    private static void printLogs(PrintStream out, boolean partitionedLog, List<BucketFreshness> logs, Instant now) {
        int partitionWidth = logs.stream()
                .flatMap(log -> log.partition().stream())
                .mapToInt(String::length)
                .reduce("partition".length(), Math::max);
        String partitionColumn = partitionedLog ? "%-" + partitionWidth + "s " : "";
        List<Object> header = new ArrayList<>(partitionedLog ? List.of("partition") : List.of());
        header.addAll(List.of("bucket", "lake offset", "log end", "behind", "oldest untiered"));
        out.printf("  " + partitionColumn + "%6s %14s %14s %14s %16s%n", header.toArray());
        for (BucketFreshness log : logs) {
            String age = log.oldestUntieredCommitMillis().isPresent()
                    ? formatAge(Duration.between(
                            Instant.ofEpochMilli(
                                    log.oldestUntieredCommitMillis().getAsLong()),
                            now))
                    : "-";
            List<Object> row =
                    new ArrayList<>(partitionedLog ? List.of(log.partition().orElse("-")) : List.of());
            row.addAll(List.of(log.bucket(), log.lakeOffset(), log.logEndOffset(), log.recordsBehind(), age));
            out.printf("  " + partitionColumn + "%6d %,14d %,14d %,14d %16s%n", row.toArray());
        }
    }

    static String formatAge(Duration age) {
        if (age.isNegative() || age.toMillis() < 1000) {
            return Math.max(0, age.toMillis()) + " ms";
        }
        if (age.toSeconds() < 120) {
            return age.toSeconds() + " s";
        }
        return age.toMinutes() + " min";
    }
}
