package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.S3MockServer;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;

/**
 * The log on a real S3 protocol server (S3Mock, in its own JVM): the object store contract ({@link
 * LogFileSystemContract}: one winner per commit version, no rename, multipart writes, ranged GETs, listing and
 * deleting) plus what is S3's own (a retried conditional request, the three schemes of S3).
 */
class TestS3LogFileSystem extends LogFileSystemContract {
    private static final String BUCKET = "lakestream";

    private static S3MockServer s3;
    private static LogFileSystems fileSystems;
    private static S3LogFileSystem fileSystem;

    @BeforeAll
    static void startS3() {
        s3 = S3MockServer.start(BUCKET);
        fileSystems = new LogFileSystems(new Configuration(), s3.catalogProperties());
        fileSystem = (S3LogFileSystem) fileSystems.apply("s3://" + BUCKET + "/any");
    }

    @Override
    protected LogFileSystem fileSystem() {
        return fileSystem;
    }

    @Override
    protected String root() {
        return "s3://" + BUCKET;
    }

    @Override
    protected String alternateRoot() {
        return "s3a://" + BUCKET;
    }

    @AfterAll
    static void stopS3() {
        if (fileSystems != null) {
            fileSystems.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Override
    protected LossyFileSystem losingFirstConditionalResponse() {
        LoseFirstConditionalResponse lostResponse = new LoseFirstConditionalResponse();
        S3Client client = S3Client.builder()
                .endpointOverride(java.net.URI.create(s3.endpoint()))
                .region(Region.of(S3MockServer.REGION))
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(
                        AwsBasicCredentials.create(S3MockServer.ACCESS_KEY, S3MockServer.SECRET_KEY)))
                .overrideConfiguration(configuration -> configuration.addExecutionInterceptor(lostResponse))
                .build();
        return new LossyFileSystem(new S3LogFileSystem(client), lostResponse::lost, client);
    }

    /**
     * Fails the first conditional {@code PutObject} after the server has answered it, as a connection reset
     * would: the SDK retries it.
     */
    private static final class LoseFirstConditionalResponse implements ExecutionInterceptor {
        private int lost;

        synchronized int lost() {
            return lost;
        }

        @Override
        public synchronized void afterTransmission(Context.AfterTransmission context, ExecutionAttributes attributes) {
            if (lost == 0
                    && context.request() instanceof PutObjectRequest put
                    && put.ifNoneMatch() != null
                    && context.httpResponse().isSuccessful()) {
                lost++;
                throw SdkClientException.create(
                        "the response was lost", new java.io.IOException("Connection reset (simulated)"));
            }
        }
    }

    @Test
    void theSchemesOfS3PickTheS3FileSystem() {
        assertThat(fileSystems.apply("s3://bucket/t/log")).isSameAs(fileSystem);
        assertThat(fileSystems.apply("s3a://bucket/t/log")).isSameAs(fileSystem);
        assertThat(fileSystems.apply("S3N://bucket/t/log")).isSameAs(fileSystem);
        assertThat(fileSystems.apply("gs://bucket/t/log")).isInstanceOf(HadoopLogFileSystem.class);
        assertThat(fileSystems.apply("/data/t/log")).isInstanceOf(LocalLogFileSystem.class);
        assertThatThrownBy(() -> fileSystem.exists("s3://bucket-only")).hasMessageContaining("bucket and a key");
    }
}
