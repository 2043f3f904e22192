package io.lakestream.cli;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.expiry.PartitionExpiry;
import java.io.PrintStream;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * {@code lakestream expire-partitions --table db.t [--retention 30d]}: the tiering service's partition expiry of one
 * table now (the log part of each tiered partition, then the lake part), as Trino's {@code EXECUTE
 * expire_partitions}; without {@code --retention} the table's {@code lakestream.partition.expiration} decides.
 */
final class ExpirePartitionsCommand {
    /** The options besides the catalog's. */
    static final Set<String> OPTIONS = Set.of("--table", "--retention");

    private ExpirePartitionsCommand() {}

    static int run(LakestreamCatalog catalog, CliArguments arguments, PrintStream out, Clock clock) {
        LakestreamTable table = catalog.loadTable(MaintenanceCommand.identifier(arguments));
        String name = table.identifier().toString();
        Optional<Duration> retention = arguments
                .option("--retention")
                .map(value -> PartitionExpiration.parseRetention(name, "--retention", value));
        PartitionExpiry.Result result = new PartitionExpiry(TieringHooks.NONE, clock).expireNow(table, retention);
        out.println("%s: %d partitions expired from the log %s, %d deleted from the lake %s%s"
                .formatted(
                        name,
                        result.expiredFromLog().size(),
                        result.expiredFromLog(),
                        result.lake().deleted().size(),
                        result.lake().deleted(),
                        result.lake().waiting().isEmpty()
                                ? ""
                                : ", %s waiting for late data of the same path to expire"
                                        .formatted(result.lake().waiting())));
        return 0;
    }
}
