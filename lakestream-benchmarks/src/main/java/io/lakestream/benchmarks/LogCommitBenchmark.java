package io.lakestream.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;
import static com.google.common.base.Preconditions.checkState;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogFileSystems;
import io.lakestream.log.LogSnapshot;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.S3MockServer;
import io.lakestream.write.LakestreamWriter;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;

/**
 * Log commits per second on S3 (S3Mock, a real S3 protocol server in its own JVM, on loopback) from 1, 2 and 4
 * concurrent Java writers, against the same on the local file system, in one run (issue 20's benchmark).
 *
 * <p>Every writer has a catalog of its own (its own S3 client and log cache, as separate processes would) on one
 * primary-key table, and makes {@code --commits} commits of {@code --rows} upserts each, keys of its own; the
 * writers start together. A commit is the real write path: segment objects, then the commit published by the
 * conditional create ({@code PutObject} with {@code If-None-Match: *} on S3, a hard link locally); a writer that
 * loses a version to another re-reads and retries. The log's file system is wrapped to count the publish attempts
 * and the lost races (the conflict retries) and to time the conditional creates. Each configuration runs {@code
 * --rounds} times on a fresh table, local and S3 interleaved; the medians are printed. Afterwards every round
 * checks that each acknowledged commit has its own version, the versions are 1..N, and the log holds every row; then
 * the round's table is dropped (its objects deleted).
 *
 * <p>Run: {@code ./lakestream bench log-commits [--commits 100] [--rows 10] [--writers 1,2,4] [--rounds 3]}.
 */
final class LogCommitBenchmark {
    static final String USAGE =
            "options: --commits N per writer (100) --rows N per commit (10) --writers 1,2,4 --buckets N (4) --rounds N (3)";
    private static final Namespace NAMESPACE = Namespace.of("bench");
    private static final String S3_BUCKET = "lakestream-bench";
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "id", Types.LongType.get()),
            Types.NestedField.optional(2, "name", Types.StringType.get()),
            Types.NestedField.optional(3, "qty", Types.IntegerType.get()));

    /** Where the warehouse (lake and log) lives. */
    enum Store {
        LOCAL("local disk"),
        S3("S3Mock");

        private final String label;

        Store(String label) {
            this.label = label;
        }

        String label() {
            return label;
        }
    }

    record Options(int commitsPerWriter, int rowsPerCommit, List<Integer> writers, int buckets, int rounds) {
        Options {
            checkArgument(commitsPerWriter > 0 && rowsPerCommit > 0 && buckets > 0 && rounds > 0, USAGE);
            checkArgument(!writers.isEmpty() && writers.stream().allMatch(count -> count > 0), USAGE);
            writers = List.copyOf(writers);
        }

        static Options parse(String[] args) {
            int commits = 100;
            int rows = 10;
            List<Integer> writers = List.of(1, 2, 4);
            int buckets = 4;
            int rounds = 3;
            for (int i = 0; i < args.length; i += 2) {
                checkArgument(i + 1 < args.length, "option %s needs a value; %s", args[i], USAGE);
                String value = args[i + 1];
                switch (args[i]) {
                    case "--commits" -> commits = Integer.parseInt(value);
                    case "--rows" -> rows = Integer.parseInt(value);
                    case "--writers" ->
                        writers = Arrays.stream(value.split(","))
                                .map(String::trim)
                                .map(Integer::valueOf)
                                .toList();
                    case "--buckets" -> buckets = Integer.parseInt(value);
                    case "--rounds" -> rounds = Integer.parseInt(value);
                    default -> throw new IllegalArgumentException("unknown option %s; %s".formatted(args[i], USAGE));
                }
            }
            return new Options(commits, rows, writers, buckets, rounds);
        }
    }

    /**
     * One round of one configuration: {@code commits} acknowledged commits holding {@code rowsInLog} rows, in
     * {@code seconds}; {@code publishAttempts} conditional creates (commits, retries and checkpoints), {@code
     * lostRaces} of them lost to another writer; {@code logFileReads} reads of log files (commits, checkpoints, hints,
     * the identity record; segments are not read).
     */
    record Round(
            Store store,
            int writers,
            long commits,
            long rowsWritten,
            long rowsInLog,
            long latestVersion,
            double seconds,
            long publishAttempts,
            long lostRaces,
            long logFileReads,
            double meanPublishMillis,
            double p50CommitMillis,
            double p99CommitMillis) {
        double commitsPerSecond() {
            return commits / seconds;
        }
    }

    private final Options options;
    private final Map<Store, CatalogConfig> configs;
    private final BufferAllocator allocator;
    private final PrintStream out;
    private int tables;

    private LogCommitBenchmark(
            Options options, Map<Store, CatalogConfig> configs, BufferAllocator allocator, PrintStream out) {
        this.options = options;
        this.configs = configs;
        this.allocator = allocator;
        this.out = out;
    }

    static void run(String[] args) throws Exception {
        measure(Options.parse(args), System.out);
    }

    /** Starts S3Mock, runs every round (after one untimed warm-up per store), prints the report: @return the rounds. */
    static List<Round> measure(Options options, PrintStream out) throws Exception {
        Path directory = Files.createTempDirectory("lakestream-log-commits-");
        try (S3MockServer s3 = S3MockServer.start(S3_BUCKET);
                BufferAllocator allocator = new RootAllocator()) {
            Map<Store, CatalogConfig> configs = Map.of(
                    Store.LOCAL,
                    CatalogConfig.embedded(directory.resolve("local")),
                    Store.S3,
                    new CatalogConfig(
                            "jdbc",
                            "s3://" + S3_BUCKET + "/warehouse",
                            Optional.of("jdbc:sqlite:" + directory.resolve("s3-catalog.db")),
                            s3.catalogProperties()));
            Files.createDirectories(directory.resolve("local"));
            for (CatalogConfig config : configs.values()) {
                try (LakestreamCatalog catalog = LakestreamCatalog.open(config)) {
                    catalog.createNamespace(NAMESPACE);
                }
            }
            LogCommitBenchmark benchmark = new LogCommitBenchmark(options, configs, allocator, out);
            // the JIT and both stores' connections warm up on one writer, not measured
            for (Store store : Store.values()) {
                benchmark.round(store, 1, Math.min(options.commitsPerWriter(), 20));
            }
            List<Round> rounds = new ArrayList<>();
            for (int round = 0; round < options.rounds(); round++) {
                for (int writers : options.writers()) {
                    // which store goes first alternates, so that neither always runs after the other's garbage
                    for (int i = 0; i < 2; i++) {
                        Store store = Store.values()[(i + round) % 2];
                        rounds.add(benchmark.round(store, writers, options.commitsPerWriter()));
                    }
                }
            }
            new LogCommitReport(options, rounds, out).print();
            return rounds;
        } finally {
            LogAppendBenchmark.deleteRecursively(directory);
        }
    }

    /** Writers start together on a fresh table; each commits {@code commitsEach} times. */
    private Round round(Store store, int writers, int commitsEach) throws Exception {
        CatalogConfig config = configs.get(store);
        TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "t" + tables++);
        try (LakestreamCatalog catalog = LakestreamCatalog.open(config)) {
            catalog.createTable(
                    identifier,
                    TableSpec.builder(SCHEMA)
                            .primaryKey("id")
                            .bucketCount(options.buckets())
                            .build());
        }
        CountingLogFileSystem.Counters counters = new CountingLogFileSystem.Counters();
        List<LakestreamCatalog> catalogs = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        try {
            List<LakestreamTable> tablesOfWriters = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                LakestreamCatalog catalog = countingCatalog(config, counters);
                catalogs.add(catalog);
                tablesOfWriters.add(catalog.loadTable(identifier));
            }
            CountDownLatch start = new CountDownLatch(1);
            List<Future<long[]>> results = new ArrayList<>();
            for (int writer = 0; writer < writers; writer++) {
                LakestreamTable table = tablesOfWriters.get(writer);
                long firstKey = (long) writer * commitsEach * options.rowsPerCommit();
                results.add(threads.submit(() -> {
                    start.await();
                    return commit(table, firstKey, commitsEach);
                }));
            }
            long startNanos = System.nanoTime();
            start.countDown();
            List<Long> versions = new ArrayList<>();
            List<Long> latencies = new ArrayList<>();
            for (Future<long[]> result : results) {
                long[] values = result.get();
                for (int i = 0; i < values.length; i += 2) {
                    versions.add(values[i]);
                    latencies.add(values[i + 1]);
                }
            }
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            long commits = (long) writers * commitsEach;
            long rowsWritten = commits * options.rowsPerCommit();
            LogSnapshot latest = catalogs.getFirst().loadTable(identifier).log().latestSnapshot();
            long rowsInLog = 0;
            for (int bucket = 0; bucket < options.buckets(); bucket++) {
                rowsInLog += latest.bucket(bucket).endOffset();
            }
            checkCounted(store, writers, versions, commits, latest.version(), rowsWritten, rowsInLog);
            latencies.sort(null);
            return new Round(
                    store,
                    writers,
                    commits,
                    rowsWritten,
                    rowsInLog,
                    latest.version(),
                    seconds,
                    counters.publishAttempts(),
                    counters.lostRaces(),
                    counters.reads(),
                    counters.meanPublishMillis(),
                    percentile(latencies, 50) / 1e6,
                    percentile(latencies, 99) / 1e6);
        } finally {
            threads.shutdownNow();
            for (LakestreamCatalog catalog : catalogs) {
                catalog.close();
            }
            // S3Mock keeps every key of a bucket in one metadata file that it rewrites on every PUT, so its requests
            // slow down as the bucket fills: each round leaves the bucket as it found it
            try (LakestreamCatalog catalog = LakestreamCatalog.open(config)) {
                catalog.dropTable(identifier);
            }
        }
    }

    /** Every acknowledged commit has a version of its own, the versions are 1..N, and the log holds every row. */
    private static void checkCounted(
            Store store,
            int writers,
            List<Long> versions,
            long commits,
            long latestVersion,
            long rowsWritten,
            long rowsInLog) {
        Set<Long> distinct = new HashSet<>(versions);
        checkState(
                distinct.size() == commits
                        && distinct.stream().allMatch(version -> version >= 1 && version <= commits)
                        && latestVersion == commits
                        && rowsInLog == rowsWritten,
                "%s with %s writers: %s commits acknowledged as %s distinct versions, latest version %s; %s rows written,"
                        + " %s in the log",
                store.label(),
                writers,
                commits,
                distinct.size(),
                latestVersion,
                rowsWritten,
                rowsInLog);
    }

    /** One writer's commits: @return pairs of (version, nanoseconds of the commit call). */
    private long[] commit(LakestreamTable table, long firstKey, int commits) {
        long[] result = new long[commits * 2];
        long key = firstKey;
        for (int commit = 0; commit < commits; commit++) {
            try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
                for (int row = 0; row < options.rowsPerCommit(); row++, key++) {
                    writer.upsert(Map.of("id", key, "name", "name-" + key, "qty", (int) (key % 100)));
                }
                long start = System.nanoTime();
                result[commit * 2] = writer.commit().version();
                result[commit * 2 + 1] = System.nanoTime() - start;
            }
        }
        return result;
    }

    /** A catalog of its own for one writer, its log's file system counted. */
    private static LakestreamCatalog countingCatalog(CatalogConfig config, CountingLogFileSystem.Counters counters) {
        LogFileSystems logs = new LogFileSystems(config.hadoopConfiguration(), config.properties());
        return new LakestreamCatalog(
                LakestreamCatalog.open(config).icebergCatalog(), new CountingLogFileSystems(logs, counters));
    }

    /** The log file systems of a catalog, each counted; closing it closes them (and their S3 client). */
    private record CountingLogFileSystems(LogFileSystems logs, CountingLogFileSystem.Counters counters)
            implements Function<String, LogFileSystem>, Closeable {
        @Override
        public LogFileSystem apply(String location) {
            return new CountingLogFileSystem(logs.apply(location), counters);
        }

        @Override
        public void close() throws IOException {
            logs.close();
        }
    }

    private static long percentile(List<Long> sorted, int percentile) {
        int index = (int) Math.ceil(percentile / 100.0 * sorted.size()) - 1;
        return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
    }
}
