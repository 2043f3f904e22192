package io.lakestream.benchmarks;

import static com.google.common.base.Preconditions.checkState;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.SegmentCodecs;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;

/**
 * Log append and range read throughput of a Lakestream table against writing and reading the same
 * rows as Parquet through Iceberg's generic writer and reader, in one run (issue 2's benchmark).
 *
 * <p>Every round writes all rows to fresh tables on each side (so Iceberg metadata does not grow
 * from round to round), reads them back, and drops the tables. The order of the sides rotates from
 * round to round so neither always runs right after the other's garbage.
 */
final class LogAppendBenchmark {
    private static final Namespace NAMESPACE = Namespace.of("bench");
    private static final PrintStream out = System.out;

    private final BenchmarkOptions options;
    private final List<Record> rows;
    private final LakestreamCatalog catalog;
    private final LakestreamSide lakestream;
    private final IcebergParquetSide parquet;

    private final Samples append = new Samples();
    private final Samples upsert = new Samples();
    private final Samples parquetWrite = new Samples();
    private final Samples logRead = new Samples();
    private final Samples parquetRead = new Samples();
    private String parquetCodec = "";
    private String logCompression = "";

    private LogAppendBenchmark(
            BenchmarkOptions options, List<Record> rows, LakestreamCatalog catalog, BufferAllocator allocator) {
        this.options = options;
        this.rows = rows;
        this.catalog = catalog;
        this.lakestream = new LakestreamSide(
                catalog, allocator, options.buckets(), options.commitRows(), options.logCompression());
        this.parquet = new IcebergParquetSide(catalog.icebergCatalog(), options.commitRows(), options.parquetCodec());
    }

    static void run(String[] args) throws IOException {
        BenchmarkOptions options = BenchmarkOptions.parse(args);
        // before any segment is written: the codec's implementation is chosen once per JVM
        options.zstd().ifPresent(zstd -> System.setProperty(SegmentCodecs.IMPLEMENTATION_PROPERTY, zstd));
        Path directory = options.directory().isPresent()
                ? Files.createDirectories(options.directory().get())
                : Files.createTempDirectory("lakestream-bench-");
        long generationStart = System.nanoTime();
        List<Record> rows = BenchmarkRows.generate(options.rows());
        out.printf(
                "Generated %,d rows in %.1f s (not measured); tables in %s%n",
                rows.size(), (System.nanoTime() - generationStart) / 1e9, directory);
        try (BufferAllocator allocator = new RootAllocator();
                LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(directory))) {
            catalog.createNamespace(NAMESPACE);
            LogAppendBenchmark benchmark = new LogAppendBenchmark(options, rows, catalog, allocator);
            int total = options.warmupRounds() + options.measuredRounds();
            for (int round = 0; round < total; round++) {
                benchmark.round(round, round >= options.warmupRounds());
            }
            benchmark.printReport();
        } finally {
            if (options.directory().isEmpty()) {
                deleteRecursively(directory);
            }
        }
    }

    private void round(int round, boolean measured) {
        LakestreamTable appendTable = lakestream.createAppendOnlyTable(TableIdentifier.of(NAMESPACE, "log_" + round));
        LakestreamTable upsertTable = lakestream.createPrimaryKeyTable(TableIdentifier.of(NAMESPACE, "pk_" + round));
        Table parquetTable = parquet.createTable(TableIdentifier.of(NAMESPACE, "parquet_" + round));
        parquetCodec = IcebergParquetSide.codecOf(parquetTable);
        logCompression =
                describe(LogCompression.of("log_" + round, appendTable.lake().properties()));

        List<Supplier<WriteResult>> writes = List.of(
                () -> lakestream.write(appendTable, rows, false),
                () -> lakestream.write(upsertTable, rows, true),
                () -> parquet.write(parquetTable, rows));
        WriteResult[] results = new WriteResult[writes.size()];
        for (int i = 0; i < writes.size(); i++) {
            int side = (i + round) % writes.size();
            collectGarbage();
            results[side] = writes.get(side).get();
        }

        ReadResult log;
        ReadResult lake;
        collectGarbage();
        if (round % 2 == 0) {
            log = lakestream.readAll(appendTable);
            collectGarbage();
            lake = parquet.readAll(parquetTable);
        } else {
            lake = parquet.readAll(parquetTable);
            collectGarbage();
            log = lakestream.readAll(appendTable);
        }
        checkState(
                log.rows() == rows.size() && lake.rows() == rows.size() && log.checksum() == lake.checksum(),
                "the two sides read different data: log %s, Parquet %s",
                log,
                lake);
        if (measured) {
            append.add(results[0]);
            upsert.add(results[1]);
            parquetWrite.add(results[2]);
            logRead.add(log.seconds(), 0, results[0].dataBytes());
            parquetRead.add(lake.seconds(), 0, results[2].dataBytes());
        }
        out.printf(
                "round %d%s: append %.2f s, upsert %.2f s, Parquet write %.2f s, log read %.2f s, Parquet read %.2f s%n",
                round + 1,
                measured ? "" : " (warm-up)",
                results[0].seconds(),
                results[1].seconds(),
                results[2].seconds(),
                log.seconds(),
                lake.seconds());

        catalog.dropTable(appendTable.identifier());
        catalog.dropTable(upsertTable.identifier());
        catalog.icebergCatalog().dropTable(TableIdentifier.of(NAMESPACE, "parquet_" + round), true);
    }

    private void printReport() {
        Runtime runtime = Runtime.getRuntime();
        out.println();
        out.println("== Log append and range read ==");
        out.printf(
                "machine: %d cores, Java %s, max heap %,d MB; %,d rows per round, commits of %,d rows, %d buckets;"
                        + " %d warm-up + %d measured rounds, medians shown%n",
                runtime.availableProcessors(),
                Runtime.version(),
                runtime.maxMemory() >> 20,
                rows.size(),
                options.commitRows(),
                options.buckets(),
                options.warmupRounds(),
                options.measuredRounds());
        out.printf("log segments: %s%n", logCompression);
        out.printf("schema: %s%n%n", BenchmarkRows.DESCRIPTION);
        out.printf(
                "%-42s %9s %12s %8s %10s %9s %15s%n",
                "phase", "median s", "rows/s", "MB/s", "data MB", "commit s", "min-max s");
        printRow("Lakestream log append (append-only)", append);
        printRow("Lakestream log upsert (primary key id)", upsert);
        printRow("Iceberg Parquet write + append (" + parquetCodec + ")", parquetWrite);
        printRow("Lakestream range read -> Arrow", logRead);
        printRow("Iceberg Parquet generic read -> Records", parquetRead);
        out.println();
        double appendRatio = parquetWrite.medianSeconds() / append.medianSeconds();
        double upsertRatio = parquetWrite.medianSeconds() / upsert.medianSeconds();
        double readRatio = parquetRead.medianSeconds() / logRead.medianSeconds();
        out.printf("%-42s %7s %7s %s%n", "ratio (rows/s vs rows/s)", "value", "goal", "");
        printRatio("log append / Parquet write", appendRatio, 3.0);
        printRatio("log upsert / Parquet write", upsertRatio, 3.0);
        printRatio("log range read / Parquet read", readRatio, 2.0);
        // Without the commit calls: Iceberg's commit is per-commit overhead that shrinks with bigger commits.
        // The log's commit call also flushes its last batches and segment footers, so this slightly favors Parquet.
        out.printf(
                "%-42s %6.2fx %7s %s%n",
                "log append / Parquet write, commits excluded",
                (parquetWrite.medianSeconds() - parquetWrite.medianCommitSeconds())
                        / (append.medianSeconds() - append.medianCommitSeconds()),
                "-",
                "(info)");
        out.println();
        out.println("What each side includes:");
        out.println("- log append/upsert: Record validation and conversion, bucketing (round-robin, or the id hash for"
                + " the primary-key table), Arrow IPC segment files (" + logCompression
                + ") written, fsync'ed and closed, their"
                + " directories synced, one log commit file (fsync'ed, published by hard link, its directory synced)"
                + " per commit; a new writer per commit.");
        out.println("- Parquet write: Iceberg's generic Parquet writer with the table's settings (codec " + parquetCodec
                + "), one data file closed per commit, then an Iceberg append commit (manifest, manifest list,"
                + " metadata JSON, catalog update in the embedded SQLite JDBC catalog).");
        out.println("- Both sides fsync every file they write and sync its directory (the embedded LocalFileIO does on"
                + " close); both end with all files closed and durable. MB/s = bytes of data files"
                + " (segments or Parquet) per second.");
        out.println("- log read: every bucket's whole range at the latest log version, all columns into Arrow"
                + " batches; Parquet read: plan the table's files, read all columns as generic Records. Both sum"
                + " id + qty + length(name) over every row (checksums verified equal). Files were just written, so"
                + " both read from the OS page cache: this measures decoding, not disk.");
    }

    private static String describe(LogCompression compression) {
        if (compression == LogCompression.NONE) {
            return "log_compression none";
        }
        return "log_compression %s, %s zstd"
                .formatted(compression.value(), SegmentCodecs.isNativeZstd() ? "native" : "pure-Java");
    }

    private void printRow(String phase, Samples samples) {
        double seconds = samples.medianSeconds();
        out.printf(
                "%-42s %9.3f %,12.0f %8.1f %10.1f %9s %15s%n",
                phase,
                seconds,
                rows.size() / seconds,
                samples.medianBytes() / seconds / 1e6,
                samples.medianBytes() / 1e6,
                samples.medianCommitSeconds() > 0 ? "%.3f".formatted(samples.medianCommitSeconds()) : "-",
                "%.2f-%.2f".formatted(samples.minSeconds(), samples.maxSeconds()));
    }

    private static void printRatio(String name, double ratio, double goal) {
        out.printf("%-42s %6.2fx %6.1fx %s%n", name, ratio, goal, ratio >= goal ? "met" : "MISSED");
    }

    /** Settles the previous phase's garbage so it is not billed to the next one. */
    private static void collectGarbage() {
        System.gc();
    }

    static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> {
                try {
                    Files.delete(path);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
    }
}
