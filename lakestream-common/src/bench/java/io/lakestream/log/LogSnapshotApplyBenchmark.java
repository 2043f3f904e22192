package io.lakestream.log;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Replaying commits onto a log snapshot ({@link LogSnapshot#apply}), which every node does for every commit:
 * a snapshot whose idempotency-key and swept-path windows are full ({@link LogSnapshot#RETAINED_IDEMPOTENCY_KEYS},
 * {@link LogSnapshot#RETAINED_SWEPT_PATHS}) and whose buckets hold {@code segmentsPerBucket} live segments each,
 * then {@value #COMMITS} commits of one kind. Scores are per commit ({@link OperationsPerInvocation}); run with
 * {@code -prof gc} for the bytes allocated per commit ({@code gc.alloc.rate.norm}). Every invocation replays from
 * the same starting snapshot, as readers that derive versions from one cached snapshot do.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class LogSnapshotApplyBenchmark {
    static final int COMMITS = 100;
    private static final int BUCKETS = 8;
    /** Paths one sweep commit names. */
    private static final int SWEPT_PER_COMMIT = 4;

    @Param({"1000"})
    public int segmentsPerBucket;

    private LogSnapshot start;
    private List<LogCommit> keyedAppends;
    private List<LogCommit> sweeps;
    private List<LogCommit> appendsAndRetention;

    @Setup
    public void setUp() {
        List<BucketLog> buckets = new ArrayList<>();
        long version = 0;
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            List<SegmentFile> segments = new ArrayList<>();
            for (int i = 0; i < segmentsPerBucket; i++) {
                segments.add(segment(bucket, i * 10L, ++version));
            }
            buckets.add(new BucketLog(0, segmentsPerBucket * 10L, segments));
        }
        Map<String, Long> keys = new LinkedHashMap<>();
        for (int i = 0; i < LogSnapshot.RETAINED_IDEMPOTENCY_KEYS; i++) {
            keys.put("query-" + i, (long) i + 1);
        }
        Map<String, Long> swept = new LinkedHashMap<>();
        for (int i = 0; i < LogSnapshot.RETAINED_SWEPT_PATHS; i++) {
            swept.put("bucket-0000/lease-swept-" + i + ".arrow", (long) i + 1);
        }
        start = new LogSnapshot(
                LogCommit.FORMAT_VERSION,
                version,
                1_000,
                buckets,
                keys,
                swept,
                Optional.empty(),
                List.of(),
                0,
                List.of());
        keyedAppends = new ArrayList<>();
        sweeps = new ArrayList<>();
        appendsAndRetention = new ArrayList<>();
        long[] keyedEnds = new long[BUCKETS];
        java.util.Arrays.fill(keyedEnds, segmentsPerBucket * 10L);
        long[] ends = keyedEnds.clone();
        int[] firstLive = new int[BUCKETS];
        for (int i = 0; i < COMMITS; i++) {
            long next = version + 1 + i;
            int bucket = i % BUCKETS;
            keyedAppends.add(append(next, bucket, keyedEnds[bucket], Optional.of("new-query-" + i)));
            keyedEnds[bucket] += 10;
            List<String> paths = new ArrayList<>();
            for (int p = 0; p < SWEPT_PER_COMMIT; p++) {
                paths.add("bucket-0001/lease-new-" + i + "-" + p + ".arrow");
            }
            sweeps.add(new LogCommit(
                    LogCommit.FORMAT_VERSION,
                    next,
                    2_000 + i,
                    Optional.empty(),
                    LogCommit.Operation.SWEEP,
                    List.of(),
                    List.of(),
                    paths));
            if (i % 2 == 0) {
                appendsAndRetention.add(append(next, bucket, ends[bucket], Optional.of("new-query-" + i)));
                ends[bucket] += 10;
            } else {
                int retained = (i / 2) % BUCKETS;
                SegmentFile first = start.bucket(retained).segments().get(firstLive[retained]++);
                appendsAndRetention.add(new LogCommit(
                        LogCommit.FORMAT_VERSION,
                        next,
                        2_000 + i,
                        Optional.empty(),
                        LogCommit.Operation.RETENTION,
                        List.of(),
                        List.of(first),
                        List.of()));
            }
        }
    }

    /** Keyed appends of one segment each (a Trino or Spark INSERT, a Java writer with a key). */
    @Benchmark
    @OperationsPerInvocation(COMMITS)
    public LogSnapshot keyedAppends() {
        return replay(keyedAppends);
    }

    /** Orphan sweeps of {@value #SWEPT_PER_COMMIT} paths each. */
    @Benchmark
    @OperationsPerInvocation(COMMITS)
    public LogSnapshot sweeps() {
        return replay(sweeps);
    }

    /** Keyed appends alternating with retention commits that remove a bucket's first segment. */
    @Benchmark
    @OperationsPerInvocation(COMMITS)
    public LogSnapshot appendsAndRetention() {
        return replay(appendsAndRetention);
    }

    private LogSnapshot replay(List<LogCommit> commits) {
        LogSnapshot snapshot = start;
        for (LogCommit commit : commits) {
            snapshot = snapshot.apply(commit, "benchmark");
        }
        return snapshot;
    }

    private static LogCommit append(long version, int bucket, long baseOffset, Optional<String> key) {
        return new LogCommit(
                LogCommit.FORMAT_VERSION,
                version,
                2_000 + version,
                key,
                LogCommit.Operation.APPEND,
                List.of(segment(bucket, baseOffset, version)),
                List.of(),
                List.of());
    }

    private static SegmentFile segment(int bucket, long baseOffset, long version) {
        return new SegmentFile(
                bucket,
                "bucket-%04d/lease-0123456789abcdef0123456789abcdef-%d.arrow".formatted(bucket, version),
                baseOffset,
                10,
                4096,
                1,
                2,
                version,
                1_000 + version,
                Optional.empty(),
                Optional.empty());
    }
}
