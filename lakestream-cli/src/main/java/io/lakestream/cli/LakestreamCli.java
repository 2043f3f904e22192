package io.lakestream.cli;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.common.LakestreamException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The Java side of the {@code lakestream} command. Engines (Trino, Spark) run in their own JVMs. */
public final class LakestreamCli {
    static final String USAGE = """
            usage: lakestream <command> [options]

              status [catalog options]                     lake offset vs log end per table and bucket
              tier [--once | --interval 5s] [catalog options]
                                                           run the embedded tiering service (--once: one pass)

            catalog options:
              --warehouse DIR|URI        default ./lakestream-warehouse (the embedded catalog in it); a location
                                         such as s3://bucket/path needs --catalog-uri
              --catalog-type jdbc|rest|hadoop                      default jdbc
              --catalog-uri URI          e.g. jdbc:postgresql://db/lakestream, jdbc:sqlite:/local/catalog.db
              --catalog-property NAME=VALUE                        repeatable: Iceberg catalog properties, e.g.
                                         s3.endpoint=http://host:9000, s3.path-style-access=true, client.region=...""";

    /** The options every command that opens the catalog takes. */
    private static final Set<String> CATALOG_OPTIONS =
            Set.of("--warehouse", "--catalog-type", "--catalog-uri", "--catalog-property");

    private LakestreamCli() {}

    public static void main(String[] args) throws Exception {
        System.exit(run(Arrays.asList(args), System.out, System.err));
    }

    /** @return the process exit code: 0 success, 1 failure, 2 bad usage */
    static int run(List<String> args, PrintStream out, PrintStream err) throws Exception {
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

    private static Set<String> with(Set<String> options, String option) {
        Set<String> all = new java.util.HashSet<>(options);
        all.add(option);
        return Set.copyOf(all);
    }

    private static LakestreamCatalog openExisting(CliArguments arguments) {
        Optional<String> uri = arguments.option("--catalog-uri");
        String type = arguments.option("--catalog-type").orElse("jdbc");
        if (arguments.remoteWarehouse() || uri.isPresent() || !type.equals("jdbc")) {
            // a catalog server (or a SQLite file elsewhere) and a warehouse anywhere, e.g. on S3
            String warehouse = arguments.remoteWarehouse()
                    ? arguments.option("--warehouse").orElseThrow()
                    : arguments.warehouse().toString();
            return LakestreamCatalog.open(new CatalogConfig(type, warehouse, uri, arguments.catalogProperties()));
        }
        if (!arguments.catalogProperties().isEmpty()) {
            throw new CliArguments.UsageException(
                    "--catalog-property needs --catalog-uri (the embedded catalog takes none)");
        }
        if (!Files.isDirectory(arguments.warehouse())) {
            throw new CliArguments.UsageException(
                    "warehouse %s does not exist; run ./lakestream demo to create one, or pass --warehouse DIR"
                            .formatted(arguments.warehouse()));
        }
        return LakestreamCatalog.open(CatalogConfig.embedded(arguments.warehouse()));
    }
}
