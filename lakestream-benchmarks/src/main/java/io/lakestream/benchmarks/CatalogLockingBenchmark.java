package io.lakestream.benchmarks;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import java.io.Closeable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * What the embedded catalog's locking (docs/storage.md) costs a reader: the latency of {@code
 * loadTable} (what every query does) while another thread commits to the same catalog every 50 ms (a
 * busy tiering service) and a third loads the table every millisecond (a polling query), with SQLite's
 * default locking as the baseline (safe here: one copy of SQLite in this JVM), SQLite's dot-file
 * locking (what other engines' clients use, and Lakestream did before its own lock) and the lock
 * Lakestream's catalog takes itself ({@code LakestreamCatalog.open}), in alternating rounds.
 *
 * <p>Run: {@code ./lakestream bench catalog-locking [--rounds N]}.
 */
final class CatalogLockingBenchmark {
    private static final TableIdentifier TABLE = TableIdentifier.of("bench", "t");
    private static final long ROUND_NANOS = TimeUnit.SECONDS.toNanos(2);

    private CatalogLockingBenchmark() {}

    static void run(String[] args) throws Exception {
        int rounds = args.length == 2 && args[0].equals("--rounds") ? Integer.parseInt(args[1]) : 6;
        Map<String, List<Long>> nanos = new LinkedHashMap<>();
        for (int round = 0; round < rounds; round++) {
            for (Locking locking : Locking.values()) {
                nanos.computeIfAbsent(locking.label, name -> new ArrayList<>()).addAll(round(locking));
            }
        }
        List<Long> baseline = nanos.get(Locking.DEFAULT.label);
        System.out.printf(
                "loadTable latency, %d rounds of %d s per locking, %d cores%n",
                rounds,
                TimeUnit.NANOSECONDS.toSeconds(ROUND_NANOS),
                Runtime.getRuntime().availableProcessors());
        nanos.forEach((name, values) -> System.out.printf(
                "%-22s loads %6d   p50 %7.3f ms (%.2fx)   p99 %7.3f ms (%.2fx)   max %8.3f ms%n",
                name,
                values.size(),
                percentile(values, 50) / 1e6,
                (double) percentile(values, 50) / percentile(baseline, 50),
                percentile(values, 99) / 1e6,
                (double) percentile(values, 99) / percentile(baseline, 99),
                percentile(values, 100) / 1e6));
    }

    private enum Locking {
        DEFAULT("default locking"),
        DOT_FILE("SQLite dot-file"),
        LAKESTREAM("Lakestream's lock");

        private final String label;

        Locking(String label) {
            this.label = label;
        }
    }

    /** One round on a fresh warehouse: @return the measured {@code loadTable} latencies in nanoseconds. */
    private static List<Long> round(Locking locking) throws Exception {
        Path warehouse = Files.createTempDirectory("catalog-locking");
        Map<String, String> properties =
                new HashMap<>(CatalogConfig.embedded(warehouse).icebergProperties());
        if (locking == Locking.DEFAULT) {
            properties.put(
                    CatalogProperties.URI, "jdbc:sqlite:" + warehouse.resolve(CatalogConfig.EMBEDDED_CATALOG_FILE));
        }
        Catalog catalog = locking == Locking.LAKESTREAM
                ? LakestreamCatalog.open(CatalogConfig.embedded(warehouse)).icebergCatalog()
                : CatalogUtil.buildIcebergCatalog("bench", properties, new Configuration());
        try {
            ((SupportsNamespaces) catalog).createNamespace(Namespace.of("bench"));
            Table table =
                    catalog.createTable(TABLE, new Schema(Types.NestedField.required(1, "id", Types.LongType.get())));
            AtomicBoolean running = new AtomicBoolean(true);
            AtomicReference<RuntimeException> failure = new AtomicReference<>();
            Thread committer = Thread.ofPlatform()
                    .start(() -> repeat(
                            running,
                            failure,
                            50,
                            () -> table.updateProperties()
                                    .set("n", Long.toString(System.nanoTime()))
                                    .commit()));
            Thread poller =
                    Thread.ofPlatform().start(() -> repeat(running, failure, 1, () -> catalog.loadTable(TABLE)));
            List<Long> latencies = new ArrayList<>();
            try {
                long end = System.nanoTime() + ROUND_NANOS;
                while (System.nanoTime() < end) {
                    long start = System.nanoTime();
                    catalog.loadTable(TABLE);
                    latencies.add(System.nanoTime() - start);
                }
            } finally {
                running.set(false);
                committer.join();
                poller.join();
            }
            if (failure.get() != null) {
                throw failure.get();
            }
            return latencies;
        } finally {
            ((Closeable) catalog).close();
            LogAppendBenchmark.deleteRecursively(warehouse);
        }
    }

    /** Runs {@code action} every {@code pauseMillis} until stopped; a failure stops it and is kept for the round. */
    private static void repeat(
            AtomicBoolean running, AtomicReference<RuntimeException> failure, long pauseMillis, Runnable action) {
        try {
            while (running.get()) {
                action.run();
                Thread.sleep(pauseMillis);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failure.set(e);
        }
    }

    private static long percentile(List<Long> values, int percentile) {
        List<Long> sorted = values.stream().sorted().toList();
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
