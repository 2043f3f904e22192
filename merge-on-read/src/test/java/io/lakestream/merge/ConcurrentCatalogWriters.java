package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.write.LakestreamWriter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Writers of one table racing for the same log versions, each with a catalog of its own (its own object store
 * clients and log cache), as separate processes would: all of them read version V and race to publish V + 1;
 * exactly one wins each version, the others re-read and retry. Shared by the object store tests.
 */
final class ConcurrentCatalogWriters {
    private ConcurrentCatalogWriters() {}

    /**
     * Runs the race: every writer commits {@code commitsEach} upserts of keys of its own, one commit each.
     * Asserts that the commits got distinct versions 1..writers × commitsEach.
     *
     * @return the oracle: every acknowledged row by key
     */
    static Map<Long, List<Object>> race(
            CatalogConfig config, TableIdentifier identifier, int writers, int commitsEach, BufferAllocator allocator)
            throws Exception {
        List<LakestreamCatalog> catalogs = new ArrayList<>();
        ExecutorService sessions = Executors.newFixedThreadPool(writers);
        Set<Long> versions = new HashSet<>();
        Map<Long, List<Object>> oracle = new TreeMap<>();
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<List<Long>>> results = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                LakestreamCatalog own = LakestreamCatalog.open(config);
                catalogs.add(own);
                LakestreamTable table = own.loadTable(identifier);
                int id = writer;
                results.add(sessions.submit(() -> {
                    start.await();
                    List<Long> committed = new ArrayList<>();
                    for (int commit = 0; commit < commitsEach; commit++) {
                        try (LakestreamWriter session = new LakestreamWriter(table, allocator)) {
                            long key = id * 100L + commit;
                            session.upsert(row(key, "w" + id, commit));
                            committed.add(session.commit().version());
                        }
                    }
                    return committed;
                }));
                for (int commit = 0; commit < commitsEach; commit++) {
                    long key = id * 100L + commit;
                    oracle.put(key, List.of(key, "w" + id, commit));
                }
            }
            start.countDown();
            for (Future<List<Long>> result : results) {
                versions.addAll(result.get());
            }
        } finally {
            sessions.shutdownNow();
            for (LakestreamCatalog own : catalogs) {
                own.close();
            }
        }
        long total = (long) writers * commitsEach;
        assertThat(versions).hasSize((int) total).allMatch(version -> version >= 1 && version <= total);
        return oracle;
    }
}
