package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Supplier;
import org.apache.iceberg.aws.AwsClientFactories;
import software.amazon.awssdk.core.ResponseInputStream;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.Delete;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * The log on S3 ({@code s3://}, {@code s3a://}, {@code s3n://}: one object store, three names for it) through
 * the AWS SDK v2, the SDK of Iceberg's {@code S3FileIO}; the client is built from the catalog properties
 * exactly as {@code S3FileIO} builds its own ({@code s3.endpoint}, {@code s3.path-style-access}, {@code
 * s3.access-key-id}, {@code client.region}, {@code http-client.type}, ...), so the log and the lake of a
 * table are configured once.
 *
 * <p>A commit, checkpoint or {@code SWEEP} commit is published with a conditional create: {@code PutObject}
 * with {@code If-None-Match: *}. S3 stores the object only if no object has the key, atomically, and answers
 * {@code 412 Precondition Failed} otherwise; readers see no object or the whole one. No rename is ever used
 * (S3 has none: a copy and a delete could replace another writer's commit). See {@link #createExclusive} for
 * the two answers that need care (a concurrent conditional write, a retried request).
 *
 * <p>Segments are plain objects ({@link #create}: one {@code PutObject}, or a multipart upload for a large
 * one); segments are read with ranged GETs through a read-ahead block; the orphan sweep lists a prefix.
 * Hints and lease files are replaced with a plain {@code PutObject} (S3 replaces an object atomically).
 */
public final class S3LogFileSystem extends ObjectStoreLogFileSystem implements Closeable {
    private final Supplier<S3Client> factory;
    private final boolean ownsClient;
    private S3Client client;

    /** A log file system whose client is built from Iceberg catalog properties, on first use. */
    public S3LogFileSystem(Map<String, String> catalogProperties) {
        Map<String, String> properties = Map.copyOf(requireNonNull(catalogProperties, "catalogProperties is null"));
        this.factory = () -> AwsClientFactories.from(properties).s3();
        this.ownsClient = true;
    }

    /** A log file system over the caller's client, which the caller closes. */
    public S3LogFileSystem(S3Client client) {
        requireNonNull(client, "client is null");
        this.factory = () -> client;
        this.ownsClient = false;
    }

    private synchronized S3Client client() {
        if (client == null) {
            client = factory.get();
        }
        return client;
    }

    @Override
    public OutputStream create(String location) throws IOException {
        return new S3OutputStream(client(), S3Location.of(location));
    }

    /**
     * {@code PutObject} with {@code If-None-Match: *}: {@code 412 Precondition Failed} when an object exists
     * (which {@link #createExclusive} then reads: it may be our own, stored by an attempt the SDK retried),
     * {@code 409 ConditionalRequestConflict} when another conditional write of the key is under way (S3 asks
     * the client to retry, and the retry gets a success or a 412).
     */
    @Override
    protected PutResult putIfAbsent(String location, byte[] content) throws IOException {
        S3Location target = S3Location.of(location);
        PutObjectRequest request = PutObjectRequest.builder()
                .bucket(target.bucket())
                .key(target.key())
                .ifNoneMatch("*")
                .build();
        try {
            client().putObject(request, RequestBody.fromBytes(content));
            return PutResult.CREATED;
        } catch (S3Exception e) {
            if (e.statusCode() == 412) {
                return PutResult.EXISTS;
            }
            if (e.statusCode() == 409) {
                return PutResult.RETRY;
            }
            throw failure("create (If-None-Match: *)", location, e);
        } catch (SdkException e) {
            throw failure("create (If-None-Match: *)", location, e);
        }
    }

    @Override
    protected String storeName() {
        return "S3";
    }

    @Override
    public void replace(String location, byte[] content) throws IOException {
        S3Location target = S3Location.of(location);
        try {
            client().putObject(
                            PutObjectRequest.builder()
                                    .bucket(target.bucket())
                                    .key(target.key())
                                    .build(),
                            RequestBody.fromBytes(content));
        } catch (SdkException e) {
            throw failure("write", location, e);
        }
    }

    @Override
    public Optional<byte[]> readIfExists(String location) throws IOException {
        S3Location source = S3Location.of(location);
        try {
            return Optional.of(client().getObjectAsBytes(GetObjectRequest.builder()
                            .bucket(source.bucket())
                            .key(source.key())
                            .build())
                    .asByteArrayUnsafe());
        } catch (SdkException e) {
            if (isNotFound(e)) {
                return Optional.empty();
            }
            throw failure("read", location, e);
        }
    }

    @Override
    protected OptionalLong objectSize(String location) throws IOException {
        S3Location source = S3Location.of(location);
        try {
            return OptionalLong.of(client().headObject(
                            builder -> builder.bucket(source.bucket()).key(source.key()))
                    .contentLength());
        } catch (SdkException e) {
            if (isNotFound(e)) {
                return OptionalLong.empty();
            }
            throw failure("look up", location, e);
        }
    }

    @Override
    protected void readRange(String location, long position, byte[] buffer, int offset, int length) throws IOException {
        S3Location source = S3Location.of(location);
        String range = "bytes=%s-%s".formatted(position, position + length - 1);
        try (ResponseInputStream<GetObjectResponse> in = client().getObject(GetObjectRequest.builder()
                .bucket(source.bucket())
                .key(source.key())
                .range(range)
                .build())) {
            int read = in.readNBytes(buffer, offset, length);
            if (read != length) {
                throw new EOFException(
                        "%s: %s bytes at %s, the object ended after %s".formatted(location, length, position, read));
            }
        } catch (SdkException e) {
            throw failure("read " + range + " of", location, e);
        }
    }

    @Override
    public void delete(String location) throws IOException {
        S3Location target = S3Location.of(location);
        try {
            // no error for a missing key (S3 answers 204 either way)
            client().deleteObject(builder -> builder.bucket(target.bucket()).key(target.key()));
        } catch (SdkException e) {
            throw failure("delete", location, e);
        }
    }

    @Override
    public void deleteRecursively(String location) throws IOException {
        S3Location directory = S3Location.of(location);
        List<ObjectIdentifier> batch = new ArrayList<>();
        try {
            for (S3Object object : list(directory)) {
                batch.add(ObjectIdentifier.builder().key(object.key()).build());
                // DeleteObjects takes at most 1000 keys
                if (batch.size() == 1000) {
                    deleteBatch(directory.bucket(), batch);
                    batch.clear();
                }
            }
            if (!batch.isEmpty()) {
                deleteBatch(directory.bucket(), batch);
            }
        } catch (SdkException e) {
            throw failure("delete the objects below", location, e);
        }
    }

    private void deleteBatch(String bucket, List<ObjectIdentifier> keys) throws IOException {
        var response = client().deleteObjects(builder -> builder.bucket(bucket)
                .delete(Delete.builder().objects(keys).quiet(true).build()));
        if (response.hasErrors() && !response.errors().isEmpty()) {
            var error = response.errors().getFirst();
            throw new IOException("Could not delete s3://%s/%s (and %s more): %s %s"
                    .formatted(bucket, error.key(), response.errors().size() - 1, error.code(), error.message()));
        }
    }

    @Override
    protected List<ListedObject> listObjects(String location) throws IOException {
        S3Location directory = S3Location.of(location);
        String prefix = directory.directoryPrefix();
        List<ListedObject> objects = new ArrayList<>();
        try {
            for (S3Object object : list(directory)) {
                objects.add(new ListedObject(
                        object.key().substring(prefix.length()),
                        object.size(),
                        object.lastModified().toEpochMilli()));
            }
        } catch (SdkException e) {
            throw failure("list", location, e);
        }
        return objects;
    }

    private Iterable<S3Object> list(S3Location directory) {
        return client().listObjectsV2Paginator(ListObjectsV2Request.builder()
                        .bucket(directory.bucket())
                        .prefix(directory.directoryPrefix())
                        .build())
                .contents();
    }

    private static boolean isNotFound(SdkException e) {
        return e instanceof NoSuchKeyException || (e instanceof S3Exception s3 && s3.statusCode() == 404);
    }

    private static IOException failure(String action, String location, SdkException e) {
        return new IOException("Could not %s %s on S3: %s".formatted(action, location, e.getMessage()), e);
    }

    @Override
    public synchronized void close() {
        // only a client this file system built; closing it releases its connection pool
        if (ownsClient && client != null) {
            client.close();
            client = null;
        }
    }

    /** Writes an object: one {@code PutObject}, or a multipart upload once it outgrows one part. */
    private static final class S3OutputStream extends OutputStream {
        /** The size of a part of a multipart upload (S3's minimum is 5 MiB for all but the last part). */
        static final int PART_BYTES = 8 * 1024 * 1024;

        private final S3Client client;
        private final S3Location target;
        private byte[] buffer = new byte[64 * 1024];
        private int buffered;
        private final List<CompletedPart> parts = new ArrayList<>();
        private String uploadId;
        private boolean closed;

        S3OutputStream(S3Client client, S3Location target) {
            this.client = client;
            this.target = target;
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] bytes, int offset, int length) throws IOException {
            if (closed) {
                throw new IOException("Stream to " + target + " is closed");
            }
            while (length > 0) {
                if (buffered == PART_BYTES) {
                    uploadPart();
                }
                ensureCapacity(Math.min(PART_BYTES, buffered + length));
                int chunk = Math.min(length, PART_BYTES - buffered);
                System.arraycopy(bytes, offset, buffer, buffered, chunk);
                buffered += chunk;
                offset += chunk;
                length -= chunk;
            }
        }

        private void ensureCapacity(int needed) {
            if (buffer.length < needed) {
                buffer = Arrays.copyOf(buffer, Math.min(PART_BYTES, Math.max(needed, buffer.length * 2)));
            }
        }

        private void uploadPart() throws IOException {
            try {
                if (uploadId == null) {
                    uploadId = client.createMultipartUpload(
                                    builder -> builder.bucket(target.bucket()).key(target.key()))
                            .uploadId();
                }
                int partNumber = parts.size() + 1;
                String eTag = client.uploadPart(
                                builder -> builder.bucket(target.bucket())
                                        .key(target.key())
                                        .uploadId(uploadId)
                                        .partNumber(partNumber),
                                RequestBody.fromBytes(Arrays.copyOf(buffer, buffered)))
                        .eTag();
                parts.add(CompletedPart.builder()
                        .partNumber(partNumber)
                        .eTag(eTag)
                        .build());
                buffered = 0;
            } catch (SdkException e) {
                abort(e);
                throw failure("write", target.toString(), e);
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            if (uploadId == null) {
                try {
                    client.putObject(
                            builder -> builder.bucket(target.bucket()).key(target.key()),
                            RequestBody.fromBytes(Arrays.copyOf(buffer, buffered)));
                } catch (SdkException e) {
                    throw failure("write", target.toString(), e);
                }
                return;
            }
            if (buffered > 0) {
                uploadPart();
            }
            try {
                client.completeMultipartUpload(builder -> builder.bucket(target.bucket())
                        .key(target.key())
                        .uploadId(uploadId)
                        .multipartUpload(upload -> upload.parts(parts)));
            } catch (SdkException e) {
                abort(e);
                throw failure("complete the upload of", target.toString(), e);
            }
        }

        private void abort(SdkException cause) {
            if (uploadId == null) {
                return;
            }
            try {
                client.abortMultipartUpload(builder ->
                        builder.bucket(target.bucket()).key(target.key()).uploadId(uploadId));
            } catch (SdkException e) {
                // an incomplete upload is invisible; a bucket lifecycle rule removes it
                cause.addSuppressed(e);
            }
        }
    }

    /** {@code scheme://bucket/key}. */
    record S3Location(String scheme, String bucket, String key) {
        S3Location {
            requireNonNull(scheme, "scheme is null");
            requireNonNull(bucket, "bucket is null");
            requireNonNull(key, "key is null");
        }

        static S3Location of(String location) {
            Optional<String> scheme = LogPublishing.scheme(location).filter(LogPublishing.S3_SCHEMES::contains);
            if (scheme.isEmpty() || !location.startsWith("://", scheme.get().length())) {
                throw new IllegalArgumentException("Not an S3 location (s3://bucket/key): " + location);
            }
            String rest = location.substring(scheme.get().length() + 3);
            int slash = rest.indexOf('/');
            if (slash <= 0) {
                throw new IllegalArgumentException("An S3 location needs a bucket and a key: " + location);
            }
            return new S3Location(scheme.get(), rest.substring(0, slash), rest.substring(slash + 1));
        }

        /** The key as the prefix of everything below it ({@code key/}). */
        String directoryPrefix() {
            return key.isEmpty() || key.endsWith("/") ? key : key + "/";
        }

        @Override
        public String toString() {
            return scheme + "://" + bucket + "/" + key;
        }
    }
}
