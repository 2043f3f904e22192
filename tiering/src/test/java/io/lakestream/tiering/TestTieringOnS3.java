package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.ChangeType;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.log.SegmentFile;
import io.lakestream.log.StagedSegment;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableSpec;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.TestingWarehouse;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tiering service with lake and log both on S3 (S3Mock, a real S3 protocol server in its own JVM; the
 * catalog in a local SQLite file): tiering rounds, compaction of a bucket's delete files, retention of tiered
 * log segments, and the orphan sweep of the log (segments a dead writer staged) and of the lake (a data file of
 * a crashed attempt), which lists S3 and reads each file's age from S3's last-modified time against the
 * service's clock. The lake ends with exactly the committed changes, and every file a commit or a snapshot
 * references stays.
 */
final class TestTieringOnS3 {
    private static final String WAREHOUSE = "s3://lakestream/warehouse";
    private static final Duration ORPHAN_AGE = Duration.ofHours(1);

    @TempDir
    Path directory;

    @Test
    void tieringCompactionRetentionAndTheOrphanSweepOnS3() throws IOException {
        try (S3MockServer s3 = S3MockServer.start("lakestream");
                LakestreamCatalog catalog = LakestreamCatalog.open(new CatalogConfig(
                        "jdbc",
                        WAREHOUSE,
                        Optional.of("jdbc:sqlite:" + directory.resolve("catalog.db")),
                        s3.catalogProperties()));
                BufferAllocator allocator = new RootAllocator()) {
            catalog.createNamespace(TestingWarehouse.NAMESPACE);
            TableIdentifier identifier = TableIdentifier.of(TestingWarehouse.NAMESPACE, "on_s3");
            LakestreamTable table = catalog.createTable(
                    identifier,
                    TableSpec.builder(TestingWarehouse.SIMPLE_SCHEMA)
                            .primaryKey("id")
                            .bucketCount(2)
                            .build());
            LogFileSystem logFiles = table.log().fileSystem();
            assertThat(logFiles).isInstanceOf(S3LogFileSystem.class);
            LakeOracle oracle = new LakeOracle(table);
            oracle.commit(allocator, TieringTests.rows(ChangeType.UPSERT, 0, 40, "v1"));

            // A writer (e.g. a Spark task) staged its segments on S3, then its job died.
            List<String> abandoned = new ArrayList<>();
            LakestreamWriter writer = new LakestreamWriter(table, allocator);
            for (long id = 100; id < 120; id++) {
                writer.upsert(Map.of("id", id, "name", "lost" + id, "score", 1));
            }
            for (StagedSegment segment : writer.prepare()) {
                abandoned.add(table.log().paths().resolve(segment.path()));
            }
            writer.close();
            assertThat(abandoned)
                    .isNotEmpty()
                    .allSatisfy(
                            location -> assertThat(logFiles.exists(location)).isTrue());

            MutableClock clock = new MutableClock(Instant.now());
            TieringConfig config = TieringConfig.builder()
                    .writerThreads(2)
                    .retention(Duration.ZERO)
                    .compactionDeleteFiles(2)
                    .orphanAge(ORPHAN_AGE)
                    .build();
            String crashed;
            try (TieringService service = new TieringService(catalog, config, TieringHooks.NONE, clock)) {
                TieringResult first = service.tierTable(identifier);
                assertThat(first.error()).isEmpty();
                assertThat(first.outcome()).isEqualTo(TieringResult.Outcome.TIERED);
                assertThat(first.orphansRemoved())
                        .as("younger than the orphan age")
                        .isZero();
                assertThat(first.segmentsRemoved())
                        .as("retention of the tiered segments")
                        .isPositive();

                oracle.commit(allocator, TieringTests.rows(ChangeType.UPSERT, 20, 40, "v2"));
                oracle.commit(allocator, TieringTests.deletes(0, 5));
                TieringResult second = service.tierTable(identifier);
                assertThat(second.error()).isEmpty();
                assertThat(second.bucketsCompacted()).as("compaction on S3").isNotEmpty();

                // A tiering attempt that crashed after writing a data file on S3, before its commit.
                Table lake = catalog.loadTable(identifier).lake();
                String referenced = dataFiles(lake).getFirst();
                crashed = referenced.substring(0, referenced.lastIndexOf('/') + 1)
                        + "00000-0-crashed-attempt-00001.parquet";
                copy(lake.io(), referenced, crashed);

                // Older than the log's orphan age, younger than the lake's: only the log's orphans go.
                clock.advance(ORPHAN_AGE.plusHours(1));
                oracle.commit(allocator, TieringTests.rows(ChangeType.UPSERT, 60, 5, "v3"));
                TieringResult logSwept = service.tierTable(identifier);
                assertThat(logSwept.error()).isEmpty();
                assertThat(logSwept.orphansRemoved()).isEqualTo(abandoned.size());
                assertThat(abandoned)
                        .allSatisfy(location ->
                                assertThat(logFiles.exists(location)).isFalse());
                assertThat(lake.io().newInputFile(crashed).exists()).isTrue();
            }
            clock.advance(TieringConfig.DEFAULT_LAKE_ORPHAN_AGE);
            try (TieringService service = new TieringService(catalog, config, TieringHooks.NONE, clock)) {
                TieringResult lakeSwept = service.tierTable(identifier);
                assertThat(lakeSwept.error()).isEmpty();
                assertThat(lakeSwept.orphansRemoved()).isEqualTo(1);
            }

            Table lake = catalog.loadTable(identifier).lake();
            assertThat(lake.io().newInputFile(crashed).exists()).isFalse();
            for (String file : dataFiles(lake)) {
                assertThat(lake.io().newInputFile(file).exists()).as(file).isTrue();
            }
            LogSnapshot log = table.log().latestSnapshot();
            for (int bucket = 0; bucket < log.bucketCount(); bucket++) {
                for (SegmentFile segment : log.bucket(bucket).segments()) {
                    assertThat(logFiles.exists(table.log().paths().resolve(segment.path())))
                            .isTrue();
                }
            }
            assertThat(LakePosition.current(lake).offsets()).isEqualTo(oracle.ends());
            assertThat(LakeOracle.readLake(lake, table.definition().schema())).isEqualTo(oracle.stateAt(oracle.ends()));
            assertThat(lake.location()).isEqualTo(WAREHOUSE + "/db/on_s3");
        }
    }

    /** The data files of the lake's current snapshot. */
    private static List<String> dataFiles(Table lake) throws IOException {
        List<String> files = new ArrayList<>();
        try (CloseableIterable<FileScanTask> tasks = lake.newScan().planFiles()) {
            for (FileScanTask task : tasks) {
                files.add(task.file().location());
            }
        }
        assertThat(files).allSatisfy(file -> assertThat(file).startsWith(WAREHOUSE + "/"));
        return files;
    }

    private static void copy(FileIO io, String from, String to) {
        try (InputStream in = io.newInputFile(from).newStream();
                OutputStream out = io.newOutputFile(to).create()) {
            in.transferTo(out);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
