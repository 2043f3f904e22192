package io.lakestream.testing;

import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.log.LogPaths;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/** The files of a table's log on the local file system, as a test looks at them. */
public final class LogFiles {
    private LogFiles() {}

    /**
     * A staged segment of {@code rows} rows whose file exists under {@code logRoot} (a one-byte stand-in: a
     * commit checks that its staged files exist, and tests of the commit protocol never read them).
     */
    public static StagedSegment stagedStandIn(Path logRoot, int bucket, long rows) {
        String path = LogPaths.newSegmentPath(bucket);
        try {
            Path file = logRoot.resolve(path);
            Files.createDirectories(file.getParent());
            Files.write(file, new byte[] {1});
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        return new StagedSegment(bucket, path, rows, 100, 0, 0, Optional.empty());
    }

    /** The segment files under the log that the newest version does not reference: staged, not committed. */
    public static List<Path> stagedSegments(LakestreamTable table) throws IOException {
        LogSnapshot snapshot = table.log().latestSnapshot();
        Set<Path> committed = new HashSet<>();
        for (int bucket = 0; bucket < snapshot.bucketCount(); bucket++) {
            snapshot.bucket(bucket)
                    .segments()
                    .forEach(segment -> committed.add(
                            LocalLogFileSystem.toPath(table.log().paths().resolve(segment.path()))));
        }
        List<Path> staged = new ArrayList<>();
        try (Stream<Path> files =
                Files.walk(LocalLogFileSystem.toPath(table.log().paths().root()))) {
            files.filter(path -> path.toString().endsWith(".arrow") && !committed.contains(path))
                    .forEach(staged::add);
        }
        return staged;
    }

    /** The writer lease files of the log. */
    public static List<Path> leaseFiles(LakestreamTable table) throws IOException {
        Path directory = LocalLogFileSystem.toPath(table.log().paths().leasesDirectory());
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(path -> path.toString().endsWith(".json")).toList();
        }
    }
}
