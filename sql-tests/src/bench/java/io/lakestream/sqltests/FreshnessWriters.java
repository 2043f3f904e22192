package io.lakestream.sqltests;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.tiering.TieringService;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The freshness benchmark's Trino, its two writers (the Java writer for even ids, Spark SQL {@code INSERT} for
 * odd ones) and its tiering service (every second), on one embedded warehouse: either each writer and the
 * tiering service in a JVM of its own, as a deployment runs them ({@link #childJvms}), or all of them in Trino's
 * JVM ({@link #inProcess}, the sql-tests set-up).
 */
interface FreshnessWriters extends AutoCloseable {
    TrinoEngine trino();

    /** Writes row {@code id} into {@code schema.events} and returns when the write returned. @return whether Spark wrote it */
    boolean write(String schema, long id) throws Exception;

    void startTiering() throws Exception;

    void stopTiering() throws Exception;

    /**
     * Each JVM's total JIT compilation time so far, in milliseconds, by role ({@code trino} is this JVM): the
     * benchmark warms up until it stops growing.
     */
    Map<String, Long> compilationMillis() throws Exception;

    private static long thisJvmCompilationMillis() {
        return ManagementFactory.getCompilationMXBean().getTotalCompilationTime();
    }

    /** @param trinoWorkers Trino servers besides the coordinator (see {@link TrinoEngine#TrinoEngine(Path, int)}) */
    static FreshnessWriters childJvms(int trinoWorkers) throws Exception {
        return new ChildJvms(trinoWorkers);
    }

    static FreshnessWriters inProcess() {
        return new InProcess();
    }

    private static String sparkInsert(String schema, long id) {
        return "INSERT INTO " + schema + ".events VALUES (" + id + ", 'spark " + id + "')";
    }

    /** Only Trino in this JVM; the writers and the tiering service are {@link FreshnessChild} processes. */
    final class ChildJvms implements FreshnessWriters {
        private final Path warehouse;
        private final Path logs;
        private final TrinoEngine trino;
        private final FreshnessProcess writer;
        private final FreshnessProcess spark;
        private FreshnessProcess tiering;

        private ChildJvms(int trinoWorkers) throws Exception {
            warehouse = Files.createTempDirectory("lakestream-freshness");
            logs = Files.createTempDirectory("lakestream-freshness-logs");
            // the children start while Trino does
            writer = FreshnessProcess.start(
                    "writer", "1g", warehouse, logs, FreshnessBenchmark.SCHEMA_NAME, FreshnessBenchmark.TABLE_NAME);
            spark = FreshnessProcess.start("spark", "3g", warehouse, logs);
            // tiers every table of the warehouse, so it may start before the benchmark's table exists
            tiering = FreshnessProcess.start("tiering", "2g", warehouse, logs);
            trino = new TrinoEngine(warehouse, trinoWorkers);
            writer.awaitReady();
            spark.awaitReady();
        }

        @Override
        public TrinoEngine trino() {
            return trino;
        }

        @Override
        public boolean write(String schema, long id) throws Exception {
            if (id % 2 == 0) {
                writer.request(Long.toString(id));
                return false;
            }
            spark.request(sparkInsert(schema, id));
            return true;
        }

        @Override
        public void startTiering() throws Exception {
            tiering.awaitReady();
        }

        @Override
        public void stopTiering() throws Exception {
            if (tiering != null) {
                tiering.close();
                tiering = null;
            }
        }

        @Override
        public Map<String, Long> compilationMillis() throws Exception {
            Map<String, Long> millis = new LinkedHashMap<>();
            millis.put("trino", thisJvmCompilationMillis());
            millis.put("writer", writer.compilationMillis());
            millis.put("spark", spark.compilationMillis());
            if (tiering != null) {
                millis.put("tiering", tiering.compilationMillis());
            }
            return millis;
        }

        @Override
        public void close() throws Exception {
            stopTiering();
            writer.close();
            spark.close();
            trino.close();
            // the children's logs stay (a failure names them)
            try (Stream<Path> paths = Files.walk(warehouse)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            }
        }
    }

    /** Trino, Spark, the Java writer and the tiering service in this JVM (the sql-tests set-up, {@link CrossEngine}). */
    final class InProcess implements FreshnessWriters {
        private final CrossEngine engines = CrossEngine.get();
        private LakestreamCatalog catalog;
        private TieringService tiering;

        @Override
        public TrinoEngine trino() {
            return engines.trinoEngine();
        }

        @Override
        public boolean write(String schema, long id) {
            if (id % 2 == 0) {
                FreshnessChild.upsert(engines.catalog(), engines.allocator(), FreshnessBenchmark.TABLE, id);
                return false;
            }
            engines.spark(sparkInsert(schema, id));
            return true;
        }

        @Override
        public void startTiering() {
            catalog = LakestreamCatalog.open(CatalogConfig.embedded(engines.warehouse()));
            tiering = new TieringService(catalog, FreshnessChild.TIERING);
            tiering.start();
        }

        @Override
        public void stopTiering() throws Exception {
            if (tiering != null) {
                tiering.close();
                catalog.close();
                tiering = null;
            }
        }

        @Override
        public Map<String, Long> compilationMillis() {
            return Map.of("all", thisJvmCompilationMillis());
        }

        @Override
        public void close() throws Exception {
            // CrossEngine stops its engines when the JVM exits
            stopTiering();
        }
    }
}
