package io.lakestream.merge;

import static io.lakestream.merge.UnionReads.row;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogPublishing;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.log.StagedSegment;
import io.lakestream.plan.ReadOptions;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.S3MockServer;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import io.lakestream.tiering.TieringService;
import io.lakestream.write.LakestreamWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;

/**
 * {@link UnionReadOnStoreScenarios} with the lake and the log on S3 (S3Mock, a real S3 protocol server in its
 * own JVM): log commits are published with S3's conditional create, the lake written through Iceberg's
 * {@code S3FileIO}. And the orphan sweep on S3, whose objects keep the server's time: a service whose clock is
 * past the orphan ages removes them.
 */
class TestUnionReadOnS3 extends UnionReadOnStoreScenarios {
    private static final String BUCKET = "lakestream";

    private S3MockServer s3;

    @Override
    Store startStore() {
        s3 = S3MockServer.start(BUCKET);
        return new Store("s3://" + BUCKET + "/warehouse", s3.catalogProperties());
    }

    @Override
    void stopStore() {
        if (s3 != null) {
            s3.close();
        }
    }

    @Override
    void assertOnStore(LakestreamTable table) {
        assertThat(table.lake().location()).startsWith("s3://" + BUCKET + "/warehouse/");
        assertThat(table.lake().io()).isInstanceOf(S3FileIO.class);
        assertThat(table.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
    }

    @Test
    void orphanSweepRemovesAbandonedObjectsOnS3OnceOldEnough() throws IOException {
        LakestreamTable table = createTable("swept", true, 2);
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(1, "kept", 1));
            writer.commit();
        }
        // a writer that staged a segment and died, a publish interrupted after its temporary object, and a
        // lake file a failed lake commit left
        List<StagedSegment> abandoned;
        try (LakestreamWriter writer = new LakestreamWriter(table, allocator)) {
            writer.upsert(row(2, "lost", 2));
            abandoned = writer.prepare();
        }
        LogFileSystem files = table.log().fileSystem();
        String logRoot = table.log().paths().root();
        List<String> orphans = new ArrayList<>();
        abandoned.forEach(segment -> orphans.add(table.log().paths().resolve(segment.path())));
        String temporary = logRoot + "/_commits/" + LogPublishing.newTemporaryName();
        try (OutputStream out = files.create(temporary)) {
            out.write(1);
        }
        orphans.add(temporary);
        String lakeOrphan = table.lake().location() + "/data/orphan-of-a-failed-commit.parquet";
        try (OutputStream out = table.lake().io().newOutputFile(lakeOrphan).create()) {
            out.write(1);
        }
        orphans.add(lakeOrphan);
        assertThat(orphans)
                .hasSizeGreaterThan(2)
                .allSatisfy(location -> assertThat(exists(files, location)).isTrue());

        // now they are young: nothing is removed
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults())) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isZero();
        }
        assertThat(orphans)
                .allSatisfy(location -> assertThat(exists(files, location)).isTrue());

        // seen by a service whose clock is past the log's orphan age and the lake's (S3 keeps the server's time)
        Clock later = Clock.offset(Clock.systemUTC(), TieringConfig.DEFAULT_LAKE_ORPHAN_AGE.plusHours(1));
        try (TieringService tiering = new TieringService(catalog, TieringConfig.defaults(), TieringHooks.NONE, later)) {
            TieringResult result = tiering.tierTable(table.identifier());
            assertThat(result.error()).isEmpty();
            assertThat(result.orphansRemoved()).isGreaterThanOrEqualTo(orphans.size());
        }
        assertThat(orphans)
                .allSatisfy(location -> assertThat(exists(files, location)).isFalse());
        // the acknowledged commit's rows, in the log and (tiered by the first service) in the lake, are intact
        LakestreamTable current = catalog.loadTable(table.identifier());
        assertThat(UnionReads.read(current, ReadOptions.UNION, COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
        assertThat(UnionReads.read(current, ReadOptions.of(io.lakestream.plan.ReadMode.LAKE), COLUMNS, allocator))
                .isEqualTo(List.of(List.of(1L, "kept", 1)));
    }

    private static boolean exists(LogFileSystem files, String location) {
        try {
            return files.exists(location);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
