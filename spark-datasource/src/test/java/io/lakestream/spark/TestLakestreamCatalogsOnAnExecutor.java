package io.lakestream.spark;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.ConcurrentLoadGate;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An executor JVM loads a table the driver planned once per table state, also when its tasks (one per core)
 * start at the same moment: each load is a catalog lookup, a metadata parse and a read of the log's commits.
 */
class TestLakestreamCatalogsOnAnExecutor {
    private static final int TASKS = 8;

    @TempDir
    Path directory;

    @Test
    void tasksStartingTogetherLoadTheTableOnce() throws Exception {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable created = warehouse.createPrimaryKeyTable("t", 2);
            // a table state no other test asks for: the cache is per JVM
            LakestreamTableRef ref = new LakestreamTableRef(
                    "ls",
                    Map.of("warehouse", directory.toString()),
                    List.of("db"),
                    "t",
                    "file:/" + UUID.randomUUID(),
                    created.lake().uuid(),
                    created.lake().schema().schemaId());
            AtomicInteger loads = new AtomicInteger();
            ConcurrentLoadGate gate = new ConcurrentLoadGate(TASKS);
            Set<LakestreamTable> loaded = ConcurrentHashMap.newKeySet();
            ExecutorService tasks = Executors.newFixedThreadPool(TASKS);
            try {
                CountDownLatch start = new CountDownLatch(1);
                List<Future<?>> running = new ArrayList<>();
                for (int task = 0; task < TASKS; task++) {
                    running.add(tasks.submit(() -> {
                        start.await();
                        gate.join();
                        loaded.add(LakestreamCatalogs.load(ref, table -> {
                            loads.incrementAndGet();
                            gate.arrive();
                            return warehouse.load("t");
                        }));
                        return null;
                    }));
                }
                start.countDown();
                for (Future<?> task : running) {
                    task.get(1, TimeUnit.MINUTES);
                }
            } finally {
                tasks.shutdownNow();
            }
            assertThat(loads.get())
                    .as("loads of one table state by %s tasks at once", TASKS)
                    .isEqualTo(1);
            assertThat(loaded).as("the tasks share the loaded table").hasSize(1);
        }
    }
}
