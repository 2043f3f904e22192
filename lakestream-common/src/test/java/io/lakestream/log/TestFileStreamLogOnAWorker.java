package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.ConcurrentLoadGate;
import io.lakestream.testing.LogFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log handle of an engine worker: the splits of a query (one per bucket) reach it at once, all pinned at a
 * version it has not seen yet. The commits between the newest version it knows and that one are read once per
 * worker, not once per split (on an object store each is a request).
 */
class TestFileStreamLogOnAWorker {
    private static final int SPLITS = 8;

    @TempDir
    Path directory;

    @Test
    void splitsPinnedAtANewVersionReadItsCommitsOnce() throws Exception {
        String root = directory.resolve("log").toString();
        FileStreamLog writer = new FileStreamLog(root, new LocalLogFileSystem(), 3);
        CountingLogFileSystem counting = new CountingLogFileSystem(new LocalLogFileSystem());
        FileStreamLog worker = new FileStreamLog(root, counting, 3);
        commit(writer, 2);
        assertThat(worker.snapshot(2).endOffsets()).isEqualTo(writer.snapshot(2).endOffsets());

        commit(writer, 4);
        int before = counting.commitReads.get();
        ConcurrentLoadGate gate = new ConcurrentLoadGate(SPLITS);
        counting.gate = gate;
        ExecutorService splits = Executors.newFixedThreadPool(SPLITS);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<LogSnapshot>> reads = new ArrayList<>();
            for (int split = 0; split < SPLITS; split++) {
                reads.add(splits.submit(() -> {
                    start.await();
                    gate.join();
                    return worker.snapshot(6);
                }));
            }
            start.countDown();
            for (Future<LogSnapshot> read : reads) {
                assertThat(read.get(1, TimeUnit.MINUTES).endOffsets())
                        .isEqualTo(writer.snapshot(6).endOffsets());
            }
        } finally {
            splits.shutdownNow();
        }
        assertThat(counting.commitReads.get() - before)
                .as(
                        "commit files read for version 6 (four commits past the worker's newest), %s splits at once",
                        SPLITS)
                .isEqualTo(4);
    }

    private void commit(FileStreamLog log, int commits) {
        for (int i = 0; i < commits; i++) {
            log.commit(List.of(LogFiles.stagedStandIn(directory.resolve("log"), i % 3, 10)), Optional.empty());
        }
    }

    /** Counts reads of commit files ({@code _commits/<version>.json}), each held at the gate. */
    private static final class CountingLogFileSystem extends RequiredOnlyForwardingLogFileSystem {
        private final AtomicInteger commitReads = new AtomicInteger();
        private volatile ConcurrentLoadGate gate = new ConcurrentLoadGate(0);

        CountingLogFileSystem(LogFileSystem delegate) {
            super(delegate);
        }

        @Override
        public Optional<byte[]> readIfExists(String location) throws IOException {
            if (location.matches(".*/_commits/\\d{20}\\.json")) {
                commitReads.incrementAndGet();
                gate.arrive();
            }
            return super.readIfExists(location);
        }
    }
}
