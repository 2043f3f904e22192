package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import io.lakestream.io.PositionedReadChannel;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
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
public final class S3LogFileSystem implements LogFileSystem, Closeable {
    /** How many times a conditional create is retried after {@code 409 ConditionalRequestConflict}. */
    private static final int CONFLICT_RETRIES = 10;

    /** Bytes fetched by one ranged GET when a reader asks for less (Arrow reads a segment in many small reads). */
    static final int READ_AHEAD_BYTES = 4 * 1024 * 1024;

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
     * Stores {@code content} at {@code location} only if no object has that key.
     *
     * <ul>
     *   <li>{@code 412 Precondition Failed}: an object exists. It may be our own: when a response is lost
     *       (a broken connection, a timeout) the SDK retries the request, the first attempt may have stored
     *       the object, and the retry then fails its condition. So the existing object is read: if it has
     *       exactly our bytes, the commit is ours (or byte for byte the same commit, which publishes the
     *       same log state: a checkpoint, or two sweeps of the same files), and it is published; otherwise
     *       another writer won.
     *   <li>{@code 409 ConditionalRequestConflict}: another conditional write of the same key is under way;
     *       S3 asks the client to retry, and the retry gets a success or a 412.
     * </ul>
     */
    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        S3Location target = S3Location.of(location);
        PutObjectRequest request = PutObjectRequest.builder()
                .bucket(target.bucket())
                .key(target.key())
                .ifNoneMatch("*")
                .build();
        for (int attempt = 0; ; attempt++) {
            try {
                client().putObject(request, RequestBody.fromBytes(content));
                return true;
            } catch (S3Exception e) {
                if (e.statusCode() == 412) {
                    return readIfExists(location)
                            .map(existing -> Arrays.equals(existing, content))
                            .orElseThrow(() -> new IOException(
                                    "S3 refused to create %s because an object exists, but no object is there: was it deleted?"
                                            .formatted(location),
                                    e));
                }
                if (e.statusCode() == 409 && attempt < CONFLICT_RETRIES) {
                    backOff(attempt);
                    continue;
                }
                throw failure("create (If-None-Match: *)", location, e);
            } catch (SdkException e) {
                throw failure("create (If-None-Match: *)", location, e);
            }
        }
    }

    private static void backOff(int attempt) throws IOException {
        try {
            TimeUnit.MILLISECONDS.sleep(ThreadLocalRandom.current().nextLong(10, 50L * (attempt + 1)));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while retrying a conditional create", e);
        }
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
    public SeekableByteChannel openForRead(String location) throws IOException {
        S3Location source = S3Location.of(location);
        long length;
        try {
            length = client().headObject(
                            builder -> builder.bucket(source.bucket()).key(source.key()))
                    .contentLength();
        } catch (SdkException e) {
            if (isNotFound(e)) {
                throw new NoSuchFileException(location);
            }
            throw failure("open", location, e);
        }
        return new RangedReadChannel(client(), source, length);
    }

    @Override
    public boolean exists(String location) throws IOException {
        S3Location source = S3Location.of(location);
        try {
            client().headObject(builder -> builder.bucket(source.bucket()).key(source.key()));
            return true;
        } catch (SdkException e) {
            if (isNotFound(e)) {
                return false;
            }
            throw failure("look up", location, e);
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
    public List<FileEntry> listRecursively(String location) throws IOException {
        String base = location.endsWith("/") ? location.substring(0, location.length() - 1) : location;
        S3Location directory = S3Location.of(base);
        String prefix = directory.directoryPrefix();
        List<FileEntry> entries = new ArrayList<>();
        try {
            for (S3Object object : list(directory)) {
                // in the caller's form (its root plus the key below it): the sweep compares them with the log's
                // locations
                entries.add(new FileEntry(
                        base + "/" + object.key().substring(prefix.length()),
                        object.size(),
                        object.lastModified().toEpochMilli()));
            }
        } catch (SdkException e) {
            throw failure("list", location, e);
        }
        return entries;
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

    /**
     * Positioned reads through ranged GETs. A read smaller than {@link #READ_AHEAD_BYTES} fetches that many
     * bytes from its position (or up to the end) and later reads inside them are served from memory: Arrow
     * reads a segment front to back in many small reads, and a GET per read would cost a round trip each.
     */
    private static final class RangedReadChannel extends PositionedReadChannel {
        private final S3Client client;
        private final S3Location source;
        private final long size;
        private byte[] block = new byte[0];
        private long blockStart;

        RangedReadChannel(S3Client client, S3Location source, long size) {
            super(size);
            this.client = client;
            this.source = source;
            this.size = size;
        }

        @Override
        protected void readFully(long position, byte[] buffer, int offset, int length) throws IOException {
            if (position >= blockStart && position + length <= blockStart + block.length) {
                System.arraycopy(block, (int) (position - blockStart), buffer, offset, length);
                return;
            }
            if (length >= READ_AHEAD_BYTES) {
                get(position, buffer, offset, length);
                return;
            }
            int fetched = (int) Math.min(READ_AHEAD_BYTES, size - position);
            byte[] next = new byte[fetched];
            get(position, next, 0, fetched);
            block = next;
            blockStart = position;
            System.arraycopy(block, 0, buffer, offset, length);
        }

        private void get(long position, byte[] buffer, int offset, int length) throws IOException {
            String range = "bytes=%s-%s".formatted(position, position + length - 1);
            try (ResponseInputStream<GetObjectResponse> in = client.getObject(GetObjectRequest.builder()
                    .bucket(source.bucket())
                    .key(source.key())
                    .range(range)
                    .build())) {
                int read = in.readNBytes(buffer, offset, length);
                if (read != length) {
                    throw new EOFException(
                            "%s: %s bytes at %s, the object ended after %s".formatted(source, length, position, read));
                }
            } catch (SdkException e) {
                throw failure("read " + range + " of", source.toString(), e);
            }
        }

        @Override
        protected void closeInput() {
            block = new byte[0];
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
