package io.lakestream.cli;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableMaintenance;
import io.lakestream.tiering.TableSnapshotExpiry;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.compaction.TableCompaction;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;

/**
 * {@code lakestream compact | expire-snapshots | expire-log | remove-orphans --table db.t}: the table maintenance
 * procedures of Spark ({@code system.*}) and Trino ({@code EXECUTE}) from the command line, with the same tiering
 * module code, on this machine.
 */
final class MaintenanceCommand {

    /** The options of each command besides the catalog's. */
    static Set<String> options(String command) {
        return switch (command) {
            case "compact" -> Set.of("--table", "--target-file-size");
            case "expire-snapshots" -> Set.of("--table", "--older-than", "--retain-last");
            case "expire-log" -> Set.of("--table", "--retention");
            default -> Set.of("--table");
        };
    }

    private MaintenanceCommand() {}

    static int run(String command, LakestreamCatalog catalog, CliArguments arguments, PrintStream out, Clock clock) {
        LakestreamTable table = catalog.loadTable(identifier(arguments));
        TieringConfig defaults = TieringConfig.defaults();
        switch (command) {
            case "compact" -> {
                long targetFileSize = arguments
                        .option("--target-file-size")
                        .map(value -> parsed("target-file-size", value).targetFileSizeBytes())
                        .orElse(defaults.targetFileSizeBytes());
                TableCompaction.Result result = new TableCompaction(defaults, TieringHooks.NONE)
                        .compact(table, Expressions.alwaysTrue(), targetFileSize);
                out.println(
                        result.snapshotId().isEmpty()
                                ? "%s: nothing to compact".formatted(table.identifier())
                                : "%s: compacted buckets %s into lake snapshot %d: %d data files and %d delete files rewritten into %d data files"
                                        .formatted(
                                                table.identifier(),
                                                result.buckets(),
                                                result.snapshotId().getAsLong(),
                                                result.dataFilesRemoved(),
                                                result.deleteFilesRemoved(),
                                                result.dataFilesAdded()));
            }
            case "expire-snapshots" -> {
                Duration olderThan = arguments
                        .option("--older-than")
                        .map(value -> parsed("log-retention", value).retention())
                        .orElse(Duration.ofDays(5));
                int retainLast = arguments
                        .option("--retain-last")
                        .map(MaintenanceCommand::count)
                        .orElse(1);
                TableSnapshotExpiry.Result result =
                        TableSnapshotExpiry.expire(table, clock.instant().minus(olderThan), retainLast);
                out.println("%s: %d lake snapshots expired, %d files deleted"
                        .formatted(table.identifier(), result.expiredSnapshots(), result.deletedFiles()));
            }
            case "expire-log" -> {
                Duration retention = arguments
                        .option("--retention")
                        .map(value -> parsed("log-retention", value).retention())
                        .orElse(defaults.retention());
                int removed = TableMaintenance.expireLog(table, retention, clock.millis());
                out.println("%s: %d log segments removed".formatted(table.identifier(), removed));
            }
            default -> {
                int removed = TableMaintenance.removeOrphans(table, defaults, clock);
                out.println("%s: %d orphan files removed".formatted(table.identifier(), removed));
            }
        }
        return 0;
    }

    static TableIdentifier identifier(CliArguments arguments) {
        String name = arguments
                .option("--table")
                .orElseThrow(() -> new CliArguments.UsageException("the command needs --table namespace.table"));
        List<String> parts = Arrays.asList(name.split("\\."));
        if (parts.size() < 2 || parts.stream().anyMatch(String::isBlank)) {
            throw new CliArguments.UsageException("--table takes namespace.table, not '%s'".formatted(name));
        }
        return TableIdentifier.of(
                Namespace.of(parts.subList(0, parts.size() - 1).toArray(String[]::new)), parts.getLast());
    }

    /** A size or duration in the tiering service's syntax ({@code 64MB}, {@code 5d}), parsed by its own config. */
    private static TieringConfig parsed(String key, String value) {
        return TieringConfig.fromProperties(Map.of(TieringConfig.PREFIX + key, value));
    }

    private static int count(String value) {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new CliArguments.UsageException("--retain-last takes a number, not '%s'".formatted(value));
        }
    }
}
