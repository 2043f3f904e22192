package io.lakestream.merge;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.S3MockServer;
import java.io.IOException;
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
        // S3 keeps the server's time: a service whose clock is past the orphan ages removes them
        sweepsAbandonedFilesOnceOldEnough();
    }
}
