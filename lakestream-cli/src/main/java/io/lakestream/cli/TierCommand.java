package io.lakestream.cli;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import java.io.PrintStream;
import java.util.List;

/** {@code lakestream tier}: one pass over all tables ({@code --once}) or the embedded service until stopped. */
final class TierCommand {
    private TierCommand() {}

    /** @return true if every table is tiered or up to date */
    static boolean runOnce(LakestreamCatalog catalog, TieringConfig config, PrintStream out) {
        try (TieringService service = new TieringService(catalog, config)) {
            List<TieringResult> results = service.runOnce();
            boolean ok = true;
            for (TieringResult result : results) {
                out.println(describe(result));
                ok &= result.outcome() == TieringResult.Outcome.TIERED
                        || result.outcome() == TieringResult.Outcome.UP_TO_DATE;
            }
            if (results.isEmpty()) {
                out.println("no Lakestream tables in this warehouse");
            }
            return ok;
        }
    }

    static void runForever(LakestreamCatalog catalog, TieringConfig config, PrintStream out)
            throws InterruptedException {
        try (TieringService service = new TieringService(catalog, config)) {
            out.printf("tiering every %s; stop with Ctrl-C%n", config.interval());
            service.start();
            Thread.currentThread().join();
        }
    }

    static String describe(TieringResult result) {
        return switch (result.outcome()) {
            case TIERED ->
                "%s: tiered %,d changes into lake snapshot %d; %,d still behind%s"
                        .formatted(
                                result.table(),
                                result.changesTiered(),
                                result.snapshotId().orElse(-1),
                                result.lag().pendingRecords(),
                                result.bucketsCompacted().isEmpty()
                                        ? ""
                                        : "; compacted buckets " + result.bucketsCompacted());
            case UP_TO_DATE -> "%s: up to date".formatted(result.table());
            default ->
                "%s: %s: %s"
                        .formatted(
                                result.table(),
                                result.outcome().name().toLowerCase(java.util.Locale.ROOT),
                                result.error().orElse(""));
        };
    }

    static TieringConfig config(CliArguments arguments) {
        TieringConfig.Builder builder = TieringConfig.defaults().toBuilder();
        arguments.option("--interval").ifPresent(value -> builder.interval(CliArguments.duration("--interval", value)));
        return builder.build();
    }
}
