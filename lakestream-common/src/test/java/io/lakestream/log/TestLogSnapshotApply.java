package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.management.ThreadMXBean;
import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@link LogSnapshot#apply} against a model built from the commits the test wrote: the idempotency-key and
 * swept-path windows as {@link LinkedHashMap}s with the documented rule (put, then remove the eldest while over
 * the limit), each bucket's segments as a plain list. Random commit sequences long enough to fill both windows
 * and evict from them: keyed appends (fresh keys, retries of a key still remembered, keys used again after they
 * fell out), retention, sweeps (with repeated paths); states derived again from older ones (versions that share
 * storage), checkpoint JSON compared byte for byte with what the plain structures serialize to, and replays
 * continued from a checkpoint read back.
 */
@ExtendWith(Seeds.class)
class TestLogSnapshotApply {
    private static final int BUCKETS = 3;
    private static final int STEPS = 4_000;

    @Test
    void applyMatchesAPlainModel() throws IOException {
        Random random = Seeds.random(18_7L);
        History history = new History(random);
        // start from windows that are almost full, as read from a checkpoint, so that a short run evicts
        Model model = new Model();
        for (int i = 0; i < LogSnapshot.RETAINED_IDEMPOTENCY_KEYS - 300; i++) {
            model.keys.put("old-query-" + i, (long) i);
        }
        for (int i = 0; i < LogSnapshot.RETAINED_SWEPT_PATHS - 300; i++) {
            model.swept.put("bucket-0000/lease-old-" + i + ".arrow", (long) i);
        }
        LogSnapshot snapshot = new LogSnapshot(
                LogCommit.FORMAT_VERSION,
                0,
                0,
                java.util.Collections.nCopies(BUCKETS, BucketLog.EMPTY),
                model.keys,
                model.swept,
                Optional.empty(),
                List.of(),
                0,
                List.of());
        List<LogSnapshot> savedSnapshots = new ArrayList<>();
        List<Model> savedModels = new ArrayList<>();
        int forks = 0;
        int roundTrips = 0;
        for (int step = 0; step < STEPS; step++) {
            LogCommit commit = history.next(model);
            snapshot = snapshot.apply(commit, "commit " + commit.version());
            model.apply(commit);
            assertRecognizes(snapshot, model, commit);
            if (random.nextInt(400) == 0 || step == STEPS - 1) {
                byte[] json = assertMatches(snapshot, model);
                if (random.nextBoolean()) {
                    // continue from the checkpoint as a reader that starts from it would
                    snapshot = LogJson.read(json, LogSnapshot.class);
                    assertThat(LogJson.write(snapshot)).isEqualTo(json);
                    roundTrips++;
                }
            }
            if (random.nextInt(200) == 0) {
                if (savedSnapshots.size() < 4) {
                    savedSnapshots.add(snapshot);
                    savedModels.add(model.copy());
                } else if (random.nextBoolean()) {
                    // keep recent states, so that the line of versions still fills the windows
                    int replaced = random.nextInt(savedSnapshots.size());
                    assertMatches(savedSnapshots.get(replaced), savedModels.get(replaced));
                    savedSnapshots.set(replaced, snapshot);
                    savedModels.set(replaced, model.copy());
                } else {
                    // derive versions again from an older state that later states share storage with
                    int saved = random.nextInt(savedSnapshots.size());
                    assertMatches(savedSnapshots.get(saved), savedModels.get(saved));
                    snapshot = savedSnapshots.get(saved);
                    model = savedModels.get(saved).copy();
                    forks++;
                }
            }
        }
        for (int saved = 0; saved < savedSnapshots.size(); saved++) {
            assertMatches(savedSnapshots.get(saved), savedModels.get(saved));
        }
        // the sequence exercised what it is for
        assertThat(history.evictedKeys).as("idempotency keys evicted").isPositive();
        assertThat(history.evictedPaths).as("swept paths evicted").isPositive();
        assertThat(history.retries).as("keyed retries").isPositive();
        assertThat(history.repeatedPaths).as("paths swept again").isPositive();
        assertThat(forks).as("states derived again").isPositive();
        assertThat(roundTrips).as("checkpoint round trips").isPositive();
    }

    @Test
    void statesDerivedConcurrentlyFromOneStateAgree() throws Exception {
        Random random = Seeds.random(18_8L);
        History history = new History(random);
        LogSnapshot parent = LogSnapshot.empty(BUCKETS);
        Model model = new Model();
        for (int step = 0; step < 3_000; step++) {
            LogCommit commit = history.next(model);
            parent = parent.apply(commit, "commit");
            model.apply(commit);
        }
        List<List<LogCommit>> lines = new ArrayList<>();
        List<Model> expected = new ArrayList<>();
        for (int line = 0; line < 4; line++) {
            Model lineModel = model.copy();
            List<LogCommit> commits = new ArrayList<>();
            for (int step = 0; step < 400; step++) {
                LogCommit commit = history.next(lineModel);
                lineModel.apply(commit);
                commits.add(commit);
            }
            lines.add(commits);
            expected.add(lineModel);
        }
        LogSnapshot start = parent;
        try (ExecutorService executor = Executors.newFixedThreadPool(lines.size())) {
            List<Future<LogSnapshot>> results = new ArrayList<>();
            for (List<LogCommit> commits : lines) {
                results.add(executor.submit(() -> {
                    LogSnapshot snapshot = start;
                    for (LogCommit commit : commits) {
                        snapshot = snapshot.apply(commit, "commit");
                    }
                    return snapshot;
                }));
            }
            for (int line = 0; line < lines.size(); line++) {
                assertMatches(results.get(line).get(), expected.get(line));
            }
        }
        assertMatches(parent, model);
    }

    /** Counted, not timed: bytes this thread allocates per commit, against ~0.8 MB when every apply copied. */
    @Test
    void applyAllocatesWhatTheCommitAdds() {
        ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        Model model = new Model();
        for (int i = 0; i < LogSnapshot.RETAINED_IDEMPOTENCY_KEYS; i++) {
            model.keys.put("query-" + i, (long) i);
            model.swept.put("bucket-0000/lease-" + i + ".arrow", (long) i);
        }
        History history = new History(new Random(1));
        LogSnapshot snapshot = LogSnapshot.empty(BUCKETS);
        for (int i = 0; i < 2_000; i++) {
            LogCommit append = history.append(model, Optional.empty());
            snapshot = snapshot.apply(append, "commit");
            model.apply(append);
        }
        snapshot = new LogSnapshot(
                snapshot.formatVersion(),
                snapshot.version(),
                snapshot.committedAtMillis(),
                snapshot.buckets(),
                model.keys,
                model.swept,
                Optional.empty(),
                List.of(),
                0,
                List.of());
        int commits = 400;
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < commits; i++) {
            LogCommit commit = i % 2 == 0
                    ? history.append(model, Optional.of("new-" + i))
                    : history.sweep(model, List.of("bucket-0001/lease-new-" + i + ".arrow"));
            snapshot = snapshot.apply(commit, "commit");
            model.apply(commit);
        }
        long perCommit = (threads.getCurrentThreadAllocatedBytes() - before) / commits;
        assertThat(snapshot.idempotencyKeys()).hasSize(LogSnapshot.RETAINED_IDEMPOTENCY_KEYS);
        assertMatches(snapshot, model);
        assertThat(perCommit)
                .as(
                        "bytes allocated per commit onto full windows and %s segments in bucket 0",
                        snapshot.bucket(0).segments().size())
                .isLessThan(16 * 1024);
    }

    /** The key of the last commit (a retry of it must be recognized) and its swept paths are remembered. */
    private static void assertRecognizes(LogSnapshot snapshot, Model model, LogCommit commit) {
        commit.idempotencyKey()
                .ifPresent(
                        key -> assertThat(snapshot.idempotencyKeys().get(key)).isEqualTo(commit.version()));
        for (String path : commit.swept()) {
            assertThat(snapshot.swept().get(path)).isEqualTo(model.swept.get(path));
        }
        assertThat(snapshot.idempotencyKeys()).hasSameSizeAs(model.keys);
        assertThat(snapshot.swept()).hasSameSizeAs(model.swept);
        assertThat(snapshot.version()).isEqualTo(model.version);
    }

    /** The whole state equals the model's, lookups included; returns the checkpoint JSON. */
    private static byte[] assertMatches(LogSnapshot snapshot, Model model) {
        assertThat(snapshot.version()).isEqualTo(model.version);
        assertThat(snapshot.committedAtMillis()).isEqualTo(model.committedAtMillis);
        for (int bucket = 0; bucket < BUCKETS; bucket++) {
            BucketLog log = snapshot.bucket(bucket);
            assertThat(log.startOffset()).as("start of bucket %s", bucket).isEqualTo(model.starts[bucket]);
            assertThat(log.endOffset()).as("end of bucket %s", bucket).isEqualTo(model.ends[bucket]);
            assertThat(log.segments()).as("segments of bucket %s", bucket).isEqualTo(model.segments.get(bucket));
        }
        assertSameWindow(snapshot.idempotencyKeys(), model.keys, model.droppedKeys);
        assertSameWindow(snapshot.swept(), model.swept, model.droppedPaths);
        byte[] json = LogJson.write(snapshot);
        assertThat(new String(json, java.nio.charset.StandardCharsets.UTF_8))
                .as("checkpoint JSON")
                .isEqualTo(new String(LogJson.write(model.plain()), java.nio.charset.StandardCharsets.UTF_8));
        return json;
    }

    private static void assertSameWindow(
            Map<String, Long> actual, LinkedHashMap<String, Long> expected, List<String> dropped) {
        assertThat(new ArrayList<>(actual.entrySet())).isEqualTo(new ArrayList<>(expected.entrySet()));
        assertThat(actual).isEqualTo(expected);
        // lookups, collected rather than asserted one by one (thousands per state)
        List<String> wrong = new ArrayList<>();
        expected.forEach((key, value) -> {
            if (!value.equals(actual.get(key)) || !actual.containsKey(key)) {
                wrong.add(key);
            }
        });
        for (String key : dropped) {
            if (actual.containsKey(key) != expected.containsKey(key)
                    || actual.get(key) != null && !expected.containsKey(key)) {
                wrong.add(key);
            }
        }
        assertThat(wrong).as("keys looked up wrong").isEmpty();
    }

    /** The state the test's commits make, by the rules in docs/format.md, in plain collections. */
    private static final class Model {
        final List<List<SegmentFile>> segments = new ArrayList<>();
        final long[] starts = new long[BUCKETS];
        final long[] ends = new long[BUCKETS];
        final LinkedHashMap<String, Long> keys = new LinkedHashMap<>();
        final LinkedHashMap<String, Long> swept = new LinkedHashMap<>();
        /** Keys and paths that fell out of the windows (some of them were remembered again later). */
        final List<String> droppedKeys = new ArrayList<>();

        final List<String> droppedPaths = new ArrayList<>();
        long version;
        long committedAtMillis;

        Model() {
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                segments.add(new ArrayList<>());
            }
        }

        Model copy() {
            Model copy = new Model();
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                copy.segments.get(bucket).addAll(segments.get(bucket));
            }
            System.arraycopy(starts, 0, copy.starts, 0, BUCKETS);
            System.arraycopy(ends, 0, copy.ends, 0, BUCKETS);
            copy.keys.putAll(keys);
            copy.swept.putAll(swept);
            copy.droppedKeys.addAll(droppedKeys);
            copy.droppedPaths.addAll(droppedPaths);
            copy.version = version;
            copy.committedAtMillis = committedAtMillis;
            return copy;
        }

        void apply(LogCommit commit) {
            for (SegmentFile removed : commit.removed()) {
                List<SegmentFile> bucket = segments.get(removed.bucket());
                assertThat(bucket.removeFirst()).isEqualTo(removed);
                starts[removed.bucket()] = bucket.isEmpty()
                        ? ends[removed.bucket()]
                        : bucket.getFirst().baseOffset();
            }
            for (SegmentFile added : commit.added()) {
                segments.get(added.bucket()).add(added);
                ends[added.bucket()] = added.endOffset();
            }
            commit.idempotencyKey()
                    .ifPresent(key -> remember(
                            keys, List.of(key), commit.version(), droppedKeys, LogSnapshot.RETAINED_IDEMPOTENCY_KEYS));
            remember(swept, commit.swept(), commit.version(), droppedPaths, LogSnapshot.RETAINED_SWEPT_PATHS);
            version = commit.version();
            committedAtMillis = commit.committedAtMillis();
        }

        private static void remember(
                LinkedHashMap<String, Long> window, List<String> added, long version, List<String> dropped, int limit) {
            for (String key : added) {
                window.put(key, version);
            }
            while (window.size() > limit) {
                String eldest = window.keySet().iterator().next();
                window.remove(eldest);
                dropped.add(eldest);
            }
        }

        PlainSnapshot plain() {
            List<PlainBucket> buckets = new ArrayList<>();
            for (int bucket = 0; bucket < BUCKETS; bucket++) {
                buckets.add(new PlainBucket(starts[bucket], ends[bucket], segments.get(bucket)));
            }
            return new PlainSnapshot(
                    LogCommit.FORMAT_VERSION, version, committedAtMillis, buckets, keys, swept, Optional.empty());
        }
    }

    /** {@link LogSnapshot} as plain collections: what a checkpoint was written from before the windows were shared. */
    record PlainSnapshot(
            int formatVersion,
            long version,
            long committedAtMillis,
            List<PlainBucket> buckets,
            Map<String, Long> idempotencyKeys,
            Map<String, Long> swept,
            Optional<java.util.UUID> tableUuid) {}

    record PlainBucket(long startOffset, long endOffset, List<SegmentFile> segments) {}

    /** Random commits that follow the model's state, with counters of what they exercised. */
    private static final class History {
        private final Random random;
        private int nextKey;
        private int nextPath;
        int evictedKeys;
        int evictedPaths;
        int retries;
        int repeatedPaths;

        History(Random random) {
            this.random = random;
        }

        LogCommit next(Model model) {
            int kind = random.nextInt(100);
            if (kind < 65) {
                Optional<String> key = Optional.empty();
                int choice = random.nextInt(100);
                if (choice < 80) {
                    key = Optional.of("query-" + nextKey++);
                } else if (choice < 88 && !model.keys.isEmpty()) {
                    // a retry of a key still remembered (FileStreamLog would not publish it; apply must still be exact)
                    key = Optional.of(randomElement(new ArrayList<>(model.keys.keySet())
                            .subList(Math.max(0, model.keys.size() - 50), model.keys.size())));
                    retries++;
                } else if (choice < 94 && !model.droppedKeys.isEmpty()) {
                    key = Optional.of(randomElement(model.droppedKeys));
                }
                evictedKeys += countEvictions(
                        model.keys, key.map(List::of).orElse(List.of()), LogSnapshot.RETAINED_IDEMPOTENCY_KEYS);
                return append(model, key);
            }
            if (kind < 85) {
                List<SegmentFile> removed = new ArrayList<>();
                int[] taken = new int[BUCKETS];
                for (int i = random.nextInt(3) + 1; i > 0; i--) {
                    int bucket = random.nextInt(BUCKETS);
                    if (taken[bucket] < model.segments.get(bucket).size()) {
                        removed.add(model.segments.get(bucket).get(taken[bucket]++));
                    }
                }
                return commit(model, Optional.empty(), LogCommit.Operation.RETENTION, List.of(), removed, List.of());
            }
            List<String> paths = new ArrayList<>();
            int count = random.nextInt(10) == 0 ? random.nextInt(800) + 1 : random.nextInt(5) + 1;
            for (int i = 0; i < count; i++) {
                int choice = random.nextInt(100);
                if (choice < 3 && !model.swept.isEmpty()) {
                    // swept again while remembered (a sweeper that failed to delete it): keeps its place
                    paths.add(model.swept.keySet().iterator().next());
                    repeatedPaths++;
                } else if (choice < 5 && !paths.isEmpty()) {
                    paths.add(paths.getFirst());
                    repeatedPaths++;
                } else if (choice < 7 && !model.droppedPaths.isEmpty()) {
                    paths.add(randomElement(model.droppedPaths));
                } else {
                    paths.add("bucket-%04d/lease-%d.arrow".formatted(random.nextInt(BUCKETS), nextPath++));
                }
            }
            evictedPaths += countEvictions(model.swept, paths, LogSnapshot.RETAINED_SWEPT_PATHS);
            return sweep(model, paths);
        }

        LogCommit append(Model model, Optional<String> key) {
            List<SegmentFile> added = new ArrayList<>();
            long version = model.version + 1;
            int first = random.nextInt(BUCKETS);
            for (int bucket = first; bucket < BUCKETS; bucket += random.nextInt(BUCKETS) + 1) {
                added.add(new SegmentFile(
                        bucket,
                        "bucket-%04d/%d-%d.arrow".formatted(bucket, version, bucket),
                        model.ends[bucket],
                        random.nextInt(20) + 1,
                        100,
                        1,
                        2,
                        version,
                        10 * version,
                        Optional.empty(),
                        Optional.empty()));
            }
            return commit(model, key, LogCommit.Operation.APPEND, added, List.of(), List.of());
        }

        LogCommit sweep(Model model, List<String> paths) {
            return commit(model, Optional.empty(), LogCommit.Operation.SWEEP, List.of(), List.of(), paths);
        }

        /** The commit that follows the model's version. */
        private static LogCommit commit(
                Model model,
                Optional<String> key,
                LogCommit.Operation operation,
                List<SegmentFile> added,
                List<SegmentFile> removed,
                List<String> swept) {
            long version = model.version + 1;
            return new LogCommit(
                    LogCommit.FORMAT_VERSION, version, 10 * version, key, operation, added, removed, swept);
        }

        private static int countEvictions(LinkedHashMap<String, Long> window, List<String> added, int limit) {
            long fresh = added.stream()
                    .distinct()
                    .filter(key -> !window.containsKey(key))
                    .count();
            return (int) Math.max(0, window.size() + fresh - limit);
        }

        private String randomElement(List<String> elements) {
            return elements.get(random.nextInt(elements.size()));
        }
    }
}
