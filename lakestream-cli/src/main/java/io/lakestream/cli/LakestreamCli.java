package io.lakestream.cli;

import io.lakestream.catalog.CatalogOptions;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.common.LakestreamException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/** The Java side of the {@code lakestream} command. Engines (Trino, Spark) run in their own JVMs. */
public final class LakestreamCli {
    static final String USAGE = """
            usage: lakestream <command> [options]

              status [catalog options]                     lake offset vs log end per table and bucket
              tier [--once | --interval 5s] [catalog options]
                                                           run the embedded tiering service (--once: one pass)
              compact --table db.t [--target-file-size 128MB] [catalog options]
                                                           rewrite the lake's data files with their deletes applied
              expire-snapshots --table db.t [--older-than 5d] [--retain-last 1] [catalog options]
                                                           expire old lake snapshots (never the one with the offsets)
              expire-log --table db.t [--retention 24h] [catalog options]
                                                           remove log segments the lake holds, committed longer ago
              remove-orphans --table db.t [catalog options]
                                                           one orphan sweep of the log and the lake
              expire-partitions --table db.t [--retention 30d] [catalog options]
                                                           expire tiered partitions older than the retention
                                                           (default: the table's lakestream.partition.expiration)

            """ + CatalogOptions.USAGE;

    /** The options every command that opens the catalog takes. */
    private static final Set<String> CATALOG_OPTIONS = CatalogOptions.NAMES;

    private LakestreamCli() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /**
     * Runs one command, as {@code main} does without exiting (for tests that drive the command line).
     *
     * @return the process exit code: 0 success, 1 failure, 2 bad usage
     */
    public static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
        if (args.isEmpty()) {
            err.println(USAGE);
            return 2;
        }
        try {
            List<String> rest = args.subList(1, args.size());
            return switch (args.getFirst()) {
                case "status" -> status(CliArguments.parse(rest, CATALOG_OPTIONS, Set.of()), out);
                case "tier" ->
                    tier(CliArguments.parse(rest, with(CATALOG_OPTIONS, "--interval"), Set.of("--once")), out);
                case "compact", "expire-snapshots", "expire-log", "remove-orphans" ->
                    maintain(
                            args.getFirst(),
                            CliArguments.parse(
                                    rest, with(CATALOG_OPTIONS, MaintenanceCommand.options(args.getFirst())), Set.of()),
                            out);
                case "expire-partitions" ->
                    expirePartitions(
                            CliArguments.parse(rest, with(CATALOG_OPTIONS, ExpirePartitionsCommand.OPTIONS), Set.of()),
                            out);
                case "help", "--help", "-h" -> {
                    out.println(USAGE);
                    yield 0;
                }
                default -> throw new CliArguments.UsageException("unknown command '%s'".formatted(args.getFirst()));
            };
        } catch (CliArguments.UsageException e) {
            err.println("error: " + e.getMessage());
            err.println(USAGE);
            return 2;
        } catch (LakestreamException e) {
            err.println("error: " + e.getMessage());
            return 1;
        }
    }

    private static int status(CliArguments arguments, PrintStream out) throws Exception {
        try (LakestreamCatalog catalog = openExisting(arguments)) {
            StatusCommand.run(catalog, out, Instant.now());
            return 0;
        }
    }

    private static int tier(CliArguments arguments, PrintStream out) throws Exception {
        if (arguments.flag("--once") && arguments.option("--interval").isPresent()) {
            throw new CliArguments.UsageException("--once and --interval exclude each other");
        }
        try (LakestreamCatalog catalog = openExisting(arguments)) {
            if (arguments.flag("--once")) {
                return TierCommand.runOnce(catalog, TierCommand.config(arguments), out) ? 0 : 1;
            }
            TierCommand.runForever(catalog, TierCommand.config(arguments), out);
            return 0;
        }
    }

    private static int maintain(String command, CliArguments arguments, PrintStream out) throws Exception {
        try (LakestreamCatalog catalog = openExisting(arguments)) {
            return MaintenanceCommand.run(command, catalog, arguments, out, Clock.systemUTC());
        }
    }

    private static int expirePartitions(CliArguments arguments, PrintStream out) throws Exception {
        try (LakestreamCatalog catalog = openExisting(arguments)) {
            return ExpirePartitionsCommand.run(catalog, arguments, out, Clock.systemUTC());
        }
    }

    private static Set<String> with(Set<String> options, String option) {
        return with(options, Set.of(option));
    }

    private static Set<String> with(Set<String> options, Set<String> more) {
        Set<String> all = new java.util.HashSet<>(options);
        all.addAll(more);
        return Set.copyOf(all);
    }

    private static LakestreamCatalog openExisting(CliArguments arguments) {
        CatalogOptions options = arguments.catalogOptions();
        if (options.embedded() && !Files.isDirectory(options.localWarehouse())) {
            throw new CliArguments.UsageException(
                    "warehouse %s does not exist; run ./lakestream demo to create one, or pass --warehouse DIR"
                            .formatted(options.localWarehouse()));
        }
        try {
            return LakestreamCatalog.open(options.config());
        } catch (IllegalArgumentException e) {
            throw new CliArguments.UsageException(e.getMessage());
        }
    }
}
