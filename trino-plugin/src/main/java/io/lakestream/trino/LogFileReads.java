package io.lakestream.trino;

import io.lakestream.log.LogPaths;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * The small log files a connector read or looked for, by kind: what finding tables' state costs the log, for
 * tests and benchmarks ({@link LakestreamConnector#metadataReads}). Segments are not counted.
 */
final class LogFileReads {
    private final LongAdder commitsRead = new LongAdder();
    private final LongAdder commitsAbsent = new LongAdder();
    private final LongAdder identityReads = new LongAdder();
    private final LongAdder checkpointReads = new LongAdder();
    private final LongAdder otherReads = new LongAdder();

    /** One read of {@code location}, which {@code found} or not. */
    void record(String location, boolean found) {
        String name = location.substring(location.lastIndexOf('/') + 1);
        if (name.equals(LogPaths.IDENTITY)) {
            identityReads.increment();
        } else if (name.equals(LogPaths.LAST_CHECKPOINT) || name.endsWith(".checkpoint.json")) {
            checkpointReads.increment();
        } else if (name.matches("\\d{20}\\.json")) {
            (found ? commitsRead : commitsAbsent).increment();
        } else {
            otherReads.increment();
        }
    }

    long total() {
        return commitsRead.sum() + commitsAbsent.sum() + identityReads.sum() + checkpointReads.sum() + otherReads.sum();
    }

    /**
     * {@code logFileReads} (all of them), {@code logCommitsRead} (commit files found), {@code logCommitsAbsent} (a
     * version looked for that does not exist yet: the end of the log), {@code logIdentityReads}, {@code
     * logCheckpointReads} (checkpoints and the checkpoint hint) and {@code logOtherReads} (e.g. writer leases).
     */
    Map<String, Long> asMap() {
        return Map.of(
                "logFileReads", total(),
                "logCommitsRead", commitsRead.sum(),
                "logCommitsAbsent", commitsAbsent.sum(),
                "logIdentityReads", identityReads.sum(),
                "logCheckpointReads", checkpointReads.sum(),
                "logOtherReads", otherReads.sum());
    }
}
