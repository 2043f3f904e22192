package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.ChangeType;
import io.lakestream.log.LocalLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
public final class TieringTests {
    private TieringTests() {}

    /** {@code count} upserts (or appends) of ids {@code first, first + 1, ...}. */
    public static List<LakeOracle.Change> rows(ChangeType type, long first, int count, String name) {
        List<LakeOracle.Change> changes = new ArrayList<>(count);
        for (long id = first; id < first + count; id++) {
            changes.add(new LakeOracle.Change(type, List.of(id, name + id, (int) (id % 100))));
        }
        return changes;
    }

    public static List<LakeOracle.Change> deletes(long first, int count) {
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

    /** Two writer threads, a bucket compacted at its second delete file, the given orphan age: for the sweep tests. */
    static TieringConfig eagerCompaction(Duration orphanAge) {
        return TieringConfig.builder()
                .writerThreads(2)
                .compactionDeleteFiles(2)
                .orphanAge(orphanAge)
                .build();
    }

    /**
     * Two rounds on a primary-key table, the second one compacting: afterwards the first round's files are
     * referenced by older snapshots only. Returns the first round's snapshot id.
     */
    static long tierTwiceWithCompaction(
            TestingWarehouse warehouse, LakestreamTable table, LakeOracle oracle, TieringService service) {
        oracle.commit(warehouse.allocator(), rows(ChangeType.UPSERT, 0, 40, "v1"));
        service.tierTable(table.identifier());
        table.lake().refresh();
        long firstSnapshot = table.lake().currentSnapshot().snapshotId();
        oracle.commit(warehouse.allocator(), rows(ChangeType.UPSERT, 20, 40, "v2"));
        oracle.commit(warehouse.allocator(), deletes(0, 5));
        assertThat(service.tierTable(table.identifier()).bucketsCompacted()).isNotEmpty();
        return firstSnapshot;
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
