package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.apache.iceberg.Table;
import org.junit.jupiter.api.Test;

/**
 * The embedded catalog (one SQLite file) used at once by four copies of the SQLite library in this
 * JVM: ours on the test class path (the Java writer, tiering), Spark's isolated class loader, and
 * the class loaders of Trino's Lakestream plugin and its stock Iceberg plugin. POSIX record locks
 * belong to the process, so with SQLite's default locking one copy neither sees nor respects another
 * copy's locks: a stock-connector read took a catalog commit's live journal for a crashed writer's
 * ("hot") journal, rolled it back and deleted it ({@code SQLITE_IOERR_DELETE_NOENT}, the failure of
 * the freshness benchmark). Here Iceberg commits (the catalog update every tiering round makes) follow
 * each other through our copy while both Trino connectors and Spark read the catalog in tight loops:
 * every commit and every read must succeed, and no reader may see a committed value go back.
 *
 * <p>The run ends on counts, not on time: after each commit the writer waits until some reader has finished a
 * query (so readers always get the catalog between commits, as between tiering rounds, however slow the machine),
 * and it stops once it made {@link #MIN_COMMITS} commits and every reader ran {@link #MIN_QUERIES_PER_READER}
 * queries while commits went on. A reader that fails ends the run at once.
 */
final class TestEmbeddedCatalogConcurrency {
    // enough overlap to fail without the fix (it failed within 5 s, here and in TestSqliteCatalogUri within 2 s)
    private static final int MIN_COMMITS = 60;
    private static final int MIN_QUERIES_PER_READER = 3;
    private static final String COUNTER = "stress.commits";

    private final CrossEngine engines = CrossEngine.get();

    @Test
    void catalogCommitsWhileBothTrinoConnectorsAndSparkRead() throws Exception {
        String s = engines.createSchema("catalog_concurrency");
        engines.trino("CREATE TABLE " + s + ".events (id bigint, note varchar)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        Table lake = engines.lake("catalog_concurrency", "events");
        lake.updateProperties().set(COUNTER, "0").commit();
        String stockCounter =
                "SELECT CAST(value AS bigint) FROM iceberg.catalog_concurrency.\"events$properties\" WHERE key = '"
                        + COUNTER + "'";
        // the stock connector (a new JdbcCatalog per query) twice, our Trino connector, Spark
        List<Reader> readers = List.of(
                new Reader(engines::trino, stockCounter),
                new Reader(engines::trino, stockCounter),
                new Reader(engines::trino, "SELECT count(*) FROM " + s + ".\"events$lake\""),
                new Reader(engines::spark, "SELECT count(*) FROM " + s + ".`events$lake`"));
        for (Reader reader : readers) {
            // first queries (plugin class loading, Spark's catalog) before the commits
            reader.engine().apply(reader.query());
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> wentBack = new ConcurrentLinkedQueue<>();
        Progress progress = new Progress();
        ExecutorService threads = Executors.newFixedThreadPool(readers.size());
        try {
            List<Future<?>> reads = new ArrayList<>();
            for (Reader reader : readers) {
                reads.add(threads.submit(() -> reader.readUntilStopped(writing, wentBack, progress)));
            }
            long commits = 0;
            try {
                while ((commits < MIN_COMMITS || !readers.stream().allMatch(Reader::readEnough))
                        && !progress.aReaderStopped()) {
                    long queries = progress.queries();
                    lake.updateProperties()
                            .set(COUNTER, Long.toString(commits + 1))
                            .commit();
                    commits++;
                    // SQLite's lock is not fair: a writer that takes it back at once would starve the readers (they
                    // wait, but this test needs them to read), so the next commit waits for a reader to get through
                    progress.awaitQueryAfter(queries);
                }
            } finally {
                writing.set(false);
            }
            for (Future<?> read : reads) {
                // a reader's failure (the engine's error, with the SQLite cause) fails the test here
                read.get();
            }
            assertThat(wentBack).isEmpty();
            assertThat(readers).as("queries during %d commits", commits).allMatch(Reader::readEnough);
            assertThat(engines.trino(stockCounter)).isEqualTo(List.of(List.of(commits)));
            assertThat(engines.lake("catalog_concurrency", "events").properties())
                    .containsEntry(COUNTER, Long.toString(commits));
        } finally {
            threads.shutdownNow();
        }
    }

    /** Queries finished by all readers, and whether a reader stopped (it failed), for the writer to wait on. */
    private static final class Progress {
        private long queries;
        private boolean readerStopped;

        synchronized long queries() {
            return queries;
        }

        synchronized boolean aReaderStopped() {
            return readerStopped;
        }

        synchronized void queried() {
            queries++;
            notifyAll();
        }

        synchronized void stopped() {
            readerStopped = true;
            notifyAll();
        }

        /** Waits until a reader finished a query after {@code seen} queries in all, or a reader stopped. */
        synchronized void awaitQueryAfter(long seen) throws InterruptedException {
            while (queries <= seen && !readerStopped) {
                wait();
            }
        }
    }

    /** One engine running one query whose single value only grows; counts how often it ran while commits went on. */
    private record Reader(Function<String, List<List<Object>>> engine, String query, AtomicInteger queries) {
        Reader(Function<String, List<List<Object>>> engine, String query) {
            this(engine, query, new AtomicInteger());
        }

        boolean readEnough() {
            return queries.get() >= MIN_QUERIES_PER_READER;
        }

        /** Runs the query until the writer stops, noting every value lower than the one before. */
        void readUntilStopped(AtomicBoolean writing, ConcurrentLinkedQueue<String> wentBack, Progress progress) {
            try {
                long last = 0;
                while (writing.get()) {
                    long value = ((Number) engine.apply(query).getFirst().getFirst()).longValue();
                    if (value < last) {
                        wentBack.add("%s: %d after %d".formatted(query, value, last));
                    }
                    last = value;
                    queries.incrementAndGet();
                    progress.queried();
                }
            } finally {
                progress.stopped();
            }
        }
    }
}
