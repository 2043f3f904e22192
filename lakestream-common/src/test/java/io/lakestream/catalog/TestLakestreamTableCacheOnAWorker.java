package io.lakestream.catalog;

import static io.lakestream.testing.TestingWarehouse.NAMESPACE;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LogFileSystems;
import io.lakestream.testing.ConcurrentLoadGate;
import io.lakestream.testing.ObservedFileIO;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.hadoop.conf.Configuration;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cache of an engine worker (a Trino worker, a node that only reads what a coordinator pinned): it never
 * asks for the current table, only for the versions its splits name. The first splits of a new lake version
 * arrive on a worker at once (one per bucket), so a version must be loaded once per worker, not once per split:
 * each load is a catalog lookup and an Iceberg metadata parse, and after every tiering round a table of 64
 * buckets would otherwise cost the catalog 64 lookups per worker.
 */
class TestLakestreamTableCacheOnAWorker {
    private static final TableIdentifier ORDERS = TableIdentifier.of(NAMESPACE, "orders");
    private static final int SPLITS = 8;

    @TempDir
    Path directory;

    private TestingWarehouse warehouse;
    private CountingFileIO workerIo;
    private LakestreamCatalog workerCatalog;

    @BeforeEach
    void setUp() {
        warehouse = new TestingWarehouse(directory);
        warehouse.createPrimaryKeyTable("orders", 4);
        // the worker's own catalog over the same warehouse, reading the lake through a counting file IO
        workerIo = new CountingFileIO();
        workerCatalog = LakestreamCatalog.open(
                CatalogConfig.embedded(directory),
                properties -> {
                    workerIo.io().initialize(properties);
                    return workerIo.io();
                },
                new LogFileSystems(new Configuration(false)));
    }

    @AfterEach
    void tearDown() throws IOException {
        workerCatalog.close();
        warehouse.close();
    }

    @Test
    void eachLakeVersionIsReadOnceByAWorker() throws Exception {
        LakestreamTableCache worker = new LakestreamTableCache(workerCatalog, 10);
        // the reads of each step are checked at the end, so that a failure shows every step's count
        SoftAssertions counts = new SoftAssertions();

        // the first version a worker sees: one catalog lookup, whose metadata is the pinned version
        String first = currentMetadata();
        assertThat(worker.pinned(ORDERS, first, 0).lake().properties()).doesNotContainKey("round");
        counts.assertThat(workerIo.metadataReads())
                .as("metadata files read for the first version")
                .isEqualTo(1);

        // a later version (tiering commits one per round): its metadata file only, no catalog lookup
        String second = commitLakeVersion("2");
        assertThat(worker.pinned(ORDERS, second, 0).lake().properties()).containsEntry("round", "2");
        counts.assertThat(workerIo.metadataReads())
                .as("after the second version")
                .isEqualTo(2);
        assertThat(worker.pinned(ORDERS, first, 0).lake().properties()).doesNotContainKey("round");
        counts.assertThat(workerIo.metadataReads())
                .as("after the first version again (kept)")
                .isEqualTo(2);

        // the splits of a query on a version the worker has not seen, all at once: one of them reads it
        String third = commitLakeVersion("3");
        ExecutorService splits = Executors.newFixedThreadPool(SPLITS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            ConcurrentLoadGate gate = new ConcurrentLoadGate(SPLITS);
            workerIo.gate = gate;
            List<Future<String>> reads = new ArrayList<>();
            for (int split = 0; split < SPLITS; split++) {
                reads.add(splits.submit(() -> {
                    start.await();
                    gate.join();
                    return worker.pinned(ORDERS, third, 0).lake().properties().get("round");
                }));
            }
            start.countDown();
            for (Future<String> read : reads) {
                assertThat(read.get(1, TimeUnit.MINUTES)).isEqualTo("3");
            }
        } finally {
            splits.shutdownNow();
        }
        counts.assertThat(workerIo.metadataReads())
                .as("after a third version %s splits asked for at once", SPLITS)
                .isEqualTo(3);
        counts.assertAll();
    }

    private String currentMetadata() {
        return ((HasTableOperations) warehouse.load("orders").lake())
                .operations()
                .current()
                .metadataFileLocation();
    }

    /** A lake commit outside the worker (tiering commits the same way): a new metadata file. */
    private String commitLakeVersion(String round) {
        warehouse.load("orders").lake().updateProperties().set("round", round).commit();
        return currentMetadata();
    }

    /**
     * The lake's file IO of the worker: counts reads of Iceberg metadata files (every catalog lookup reads the
     * current one, every pinned version its own), each held at the gate when one is set.
     */
    private static final class CountingFileIO {
        private final AtomicInteger metadataReads = new AtomicInteger();
        private volatile ConcurrentLoadGate gate = new ConcurrentLoadGate(0);
        private final ObservedFileIO io = new ObservedFileIO(new LocalFileIO(), this::countAndHold);

        int metadataReads() {
            return metadataReads.get();
        }

        FileIO io() {
            return io;
        }

        private void countAndHold(String location) {
            if (location.endsWith(".metadata.json")) {
                metadataReads.incrementAndGet();
                gate.arrive();
            }
        }
    }
}
