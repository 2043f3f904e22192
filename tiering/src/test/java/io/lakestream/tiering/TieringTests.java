package io.lakestream.tiering;

import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;

/** Small helpers shared by the tiering tests. */
final class TieringTests {
    private TieringTests() {}

    /** {@code count} upserts (or appends) of ids {@code first, first + 1, ...}. */
    static List<LakeOracle.Change> rows(ChangeType type, long first, int count, String name) {
        List<LakeOracle.Change> changes = new ArrayList<>(count);
        for (long id = first; id < first + count; id++) {
            changes.add(new LakeOracle.Change(type, List.of(id, name + id, (int) (id % 100))));
        }
        return changes;
    }

    static List<LakeOracle.Change> deletes(long first, int count) {
        List<LakeOracle.Change> changes = new ArrayList<>(count);
        for (long id = first; id < first + count; id++) {
            List<Object> row = new ArrayList<>();
            row.add(id);
            row.add(null);
            row.add(null);
            changes.add(new LakeOracle.Change(ChangeType.DELETE, row));
        }
        return changes;
    }

    /** Parquet files under the table's data directory that no current lake file refers to. */
    static Set<String> orphanDataFiles(Table lake) {
        lake.refresh();
        Set<String> referenced = new HashSet<>();
        if (lake.currentSnapshot() != null) {
            try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
                for (FileScanTask task : tasks) {
                    referenced.add(
                            LocalLogFileSystem.toPath(task.file().location()).toString());
                    task.deletes().stream()
                            .map(ContentFile::location)
                            .forEach(
                                    location -> referenced.add(Path.of(location).toString()));
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        // Files replaced by compaction stay referenced by older snapshots; count them as referenced.
        lake.snapshots().forEach(snapshot -> {
            snapshot.addedDataFiles(lake.io())
                    .forEach(file -> referenced.add(
                            LocalLogFileSystem.toPath(file.location()).toString()));
            snapshot.addedDeleteFiles(lake.io())
                    .forEach(file -> referenced.add(
                            LocalLogFileSystem.toPath(file.location()).toString()));
        });
        Path data = Path.of(lake.location().replaceFirst("^file:", ""), "data");
        if (!Files.exists(data)) {
            return Set.of();
        }
        Set<String> orphans = new HashSet<>();
        try (Stream<Path> files = Files.walk(data)) {
            files.filter(path -> path.toString().endsWith(".parquet"))
                    .map(Path::toString)
                    .filter(path -> !referenced.contains(path))
                    .forEach(orphans::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return orphans;
    }
}
