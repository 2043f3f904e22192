package io.lakestream.sqltests;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The tiering service on one table in a JVM of its own: {@code <catalog-config-file> <schema> <table>} runs
 * tiering rounds one after the other until its standard input closes, then prints how many rounds had each
 * outcome. A round that fails or stops the table ends it with exit code 1.
 */
public final class CatalogTieringProcess {
    private CatalogTieringProcess() {}

    public static void main(String[] args) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Thread.ofPlatform().daemon().start(() -> {
            try {
                while (System.in.read() >= 0) {
                    // the parent only ever closes it
                }
            } catch (IOException e) {
                // the parent is gone
            }
            stop.set(true);
        });
        Map<TieringResult.Outcome, Integer> outcomes = new EnumMap<>(TieringResult.Outcome.class);
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(ServerCatalog.readConfigFile(Path.of(args[0])));
                RootAllocator allocator = new RootAllocator()) {
            TableTiering tiering = new TableTiering(
                    TieringConfig.defaults(), allocator, threads, TieringHooks.NONE, Clock.systemUTC());
            TableIdentifier identifier = TableIdentifier.of(args[1], args[2]);
            while (!stop.get()) {
                TieringResult result = tiering.tier(catalog.loadTable(identifier));
                outcomes.merge(result.outcome(), 1, Integer::sum);
                System.out.println("ROUND " + result.outcome() + " " + result.changesTiered());
                switch (result.outcome()) {
                    case FAILED, STOPPED -> {
                        System.out.println("FAILED " + result.error().orElse(""));
                        System.exit(1);
                    }
                    // nothing to do: a short pause instead of spinning on the catalog
                    case UP_TO_DATE -> Thread.sleep(50);
                    default -> {}
                }
            }
        } finally {
            threads.shutdownNow();
        }
        System.out.println("OUTCOMES " + outcomes);
    }
}
