package io.lakestream.benchmarks;

import static com.google.common.base.Preconditions.checkArgument;

import io.lakestream.table.LogCompression;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Options of the log-append benchmark, from {@code --name value} arguments.
 *
 * @param rows rows written per round by each side
 * @param commitRows rows per commit (one log commit, or one Parquet file plus one Iceberg append)
 * @param buckets log buckets of the Lakestream tables
 * @param warmupRounds rounds run first and not reported
 * @param measuredRounds rounds whose median is reported
 * @param parquetCodec Parquet codec of the baseline; empty means the Iceberg table default
 * @param directory where the tables go; empty means a fresh temporary directory, deleted at the end
 * @param logCompression {@code lakestream.log.compression} of the Lakestream tables; empty means the default of new
 *     tables
 * @param zstd the zstd implementation of log segments ({@code native} or {@code java}: {@code
 *     SegmentCodecs.IMPLEMENTATION_PROPERTY}); empty means native, falling back to Java
 */
record BenchmarkOptions(
        int rows,
        int commitRows,
        int buckets,
        int warmupRounds,
        int measuredRounds,
        Optional<String> parquetCodec,
        Optional<Path> directory,
        Optional<LogCompression> logCompression,
        Optional<String> zstd) {
    static final String USAGE = "options: --rows N (2000000) --commit-rows N (100000) --buckets N (4) --warmup N (2)"
            + " --rounds N (5) --parquet-codec zstd|snappy|gzip|uncompressed (table default) --dir PATH (a temp dir)"
            + " --log-compression none|zstd (table default) --zstd native|java (native)";

    BenchmarkOptions {
        checkArgument(rows > 0 && commitRows > 0 && buckets > 0, "rows, commit rows and buckets must be positive");
        checkArgument(warmupRounds >= 0 && measuredRounds > 0, "need at least one measured round");
        checkArgument(
                zstd.isEmpty() || zstd.get().equals("native") || zstd.get().equals("java"),
                "--zstd is native or java, not %s",
                zstd.orElse(""));
    }

    static BenchmarkOptions parse(String[] args) {
        int rows = 2_000_000;
        int commitRows = 100_000;
        int buckets = 4;
        int warmup = 2;
        int rounds = 5;
        Optional<String> codec = Optional.empty();
        Optional<Path> directory = Optional.empty();
        Optional<LogCompression> logCompression = Optional.empty();
        Optional<String> zstd = Optional.empty();
        for (int i = 0; i < args.length; i += 2) {
            checkArgument(i + 1 < args.length, "option %s needs a value; %s", args[i], USAGE);
            String value = args[i + 1];
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(value);
                case "--commit-rows" -> commitRows = Integer.parseInt(value);
                case "--buckets" -> buckets = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--parquet-codec" -> codec = Optional.of(value);
                case "--dir" -> directory = Optional.of(Path.of(value));
                case "--log-compression" ->
                    logCompression = Optional.of(LogCompression.parse("of the benchmark", value));
                case "--zstd" -> zstd = Optional.of(value);
                default -> throw new IllegalArgumentException("unknown option %s; %s".formatted(args[i], USAGE));
            }
        }
        return new BenchmarkOptions(rows, commitRows, buckets, warmup, rounds, codec, directory, logCompression, zstd);
    }
}
