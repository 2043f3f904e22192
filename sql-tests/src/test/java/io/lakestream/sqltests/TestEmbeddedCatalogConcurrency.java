package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
 */
final class TestEmbeddedCatalogConcurrency {
    // enough overlap to fail without the fix (it failed within 5 s, here and in TestSqliteCatalogUri within 2 s)
    private static final int MIN_COMMITS = 60;
    private static final int MIN_QUERIES_PER_READER = 3;
    // on a loaded machine the minimums take longer: give up (and fail) only after this
    private static final long MAX_STRESS_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final String COUNTER = "stress.commits";
    private static final long PAUSE_MILLIS = 20;

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
            // first queries (plugin class loading, Spark's catalog) out of the timed window
            reader.engine().apply(reader.query());
        }
        AtomicBoolean writing = new AtomicBoolean(true);
        ConcurrentLinkedQueue<String> wentBack = new ConcurrentLinkedQueue<>();
        ExecutorService threads = Executors.newFixedThreadPool(readers.size());
        try {
            List<Future<?>> reads = new ArrayList<>();
            for (Reader reader : readers) {
                reads.add(threads.submit(() -> reader.readUntilStopped(writing, wentBack)));
            }
            long commits = 0;
            long deadline = System.nanoTime() + MAX_STRESS_NANOS;
            try {
                while ((commits < MIN_COMMITS || !readers.stream().allMatch(Reader::readEnough))
                        && System.nanoTime() < deadline) {
                    lake.updateProperties()
                            .set(COUNTER, Long.toString(commits + 1))
                            .commit();
                    commits++;
                    // a moment between commits, as between tiering rounds: SQLite's lock is not fair, and a writer
                    // that takes it back at once would starve the readers (they wait, but this test needs them to read)
                    Thread.sleep(PAUSE_MILLIS);
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

    /** One engine running one query whose single value only grows; counts how often it ran while commits went on. */
    private record Reader(Function<String, List<List<Object>>> engine, String query, AtomicInteger queries) {
        Reader(Function<String, List<List<Object>>> engine, String query) {
            this(engine, query, new AtomicInteger());
        }

        boolean readEnough() {
            return queries.get() >= MIN_QUERIES_PER_READER;
        }

        /** Runs the query until the writer stops, noting every value lower than the one before. */
        void readUntilStopped(AtomicBoolean writing, ConcurrentLinkedQueue<String> wentBack) {
            long last = 0;
            while (writing.get()) {
                long value = ((Number) engine.apply(query).getFirst().getFirst()).longValue();
                if (value < last) {
                    wentBack.add("%s: %d after %d".formatted(query, value, last));
                }
                last = value;
                queries.incrementAndGet();
            }
        }
    }
}
