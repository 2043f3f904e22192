package io.lakestream.log;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every object store's {@link LogFileSystem} must do, run against a real server of that store (S3Mock,
 * Azurite): conditional creates publish each commit version once however many writers race for it, with no
 * temporary object and no rename; objects are written (in parts when large), read with ranged reads, listed
 * and deleted as the log, its readers and the orphan sweep need. A store's test class starts its server and
 * names the file system and two roots on it (the same place in two of the store's URI forms).
 */
@ExtendWith(Seeds.class)
abstract class LogFileSystemContract {
    /** The file system under test. */
    protected abstract LogFileSystem fileSystem();

    /** A directory on the server, without a trailing slash (e.g. {@code s3://bucket}). */
    protected abstract String root();

    /** A directory on the server in another URI form of the store (e.g. {@code s3a://bucket}). */
    protected abstract String alternateRoot();

    /**
     * A file system on the same server whose client loses the response to its first successful conditional
     * create, as a reset connection would, so that the SDK retries the request.
     */
    protected abstract LossyFileSystem losingFirstConditionalResponse();

    /**
     * @param lostResponses how many conditional responses were lost so far
     * @param resources what the test closes afterwards (a client)
     */
    protected record LossyFileSystem(LogFileSystem fileSystem, IntSupplier lostResponses, AutoCloseable resources) {}

    @Test
    void aCommitWhoseResponseWasLostIsPublishedOnce() throws Exception {
        // The SDK retries a request whose response it did not get (a reset connection, a timeout), and the first
        // attempt may have stored the object: the retry then fails its condition ("exists"), on the writer's own
        // commit. Taken for a lost race, the writer would publish the same commit again at the next version,
        // and its rows would be read twice.
        LossyFileSystem lossy = losingFirstConditionalResponse();
        try (AutoCloseable _ = lossy.resources()) {
            LogFileSystem flaky = lossy.fileSystem();
            String root = root() + "/logs/lost-response";
            FileStreamLog log = new FileStreamLog(root, flaky, 1);
            String segment = "bucket-0000/only.arrow";
            try (OutputStream out = flaky.create(root + "/" + segment)) {
                out.write(bytes("rows"));
            }
            long version = log.commit(
                            List.of(new StagedSegment(0, segment, 3, 4, 0, 0, Optional.empty())), Optional.empty())
                    .version();
            assertThat(lossy.lostResponses().getAsInt())
                    .as("conditional responses lost")
                    .isEqualTo(1);
            assertThat(version).isEqualTo(1);
            LogSnapshot snapshot = new FileStreamLog(root, fileSystem(), 1).latestSnapshot();
            assertThat(snapshot.version()).as("the commit is published once").isEqualTo(1);
            assertThat(snapshot.bucket(0).endOffset()).isEqualTo(3);
        }
    }

    @Test
    void conditionalCreatePublishesOnceAndNeverReplaces() throws IOException {
        String commit = "%s/exclusive/_commits/%020d.json".formatted(root(), 1);
        assertThat(fileSystem().readIfExists(commit)).isEmpty();
        assertThat(fileSystem().createExclusive(commit, bytes("first"))).isTrue();
        // the server checks If-None-Match: *: another writer's content is refused
        assertThat(fileSystem().createExclusive(commit, bytes("second"))).isFalse();
        assertThat(text(fileSystem().readIfExists(commit).orElseThrow())).isEqualTo("first");
        // exactly the bytes already there: the answer to a retried request of the same writer, whose first
        // attempt landed (see ObjectStoreLogFileSystem#createExclusive); the object is not written again
        assertThat(fileSystem().createExclusive(commit, bytes("first"))).isTrue();
        assertThat(text(fileSystem().readIfExists(commit).orElseThrow())).isEqualTo("first");
        assertThat(fileSystem().canPublish(commit)).isTrue();
        // a hint is replaced in place
        String hint = "%s/exclusive/_commits/_last_checkpoint".formatted(root());
        fileSystem().replace(hint, bytes("1"));
        fileSystem().replace(hint, bytes("2"));
        assertThat(text(fileSystem().readIfExists(hint).orElseThrow())).isEqualTo("2");
    }

    @Test
    void racingWritersHaveExactlyOneWinnerPerVersion() throws Exception {
        int writers = 4;
        String directory = "%s/race/_commits".formatted(root());
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        try {
            for (int version = 0; version < 8; version++) {
                String commit = "%s/%020d.json".formatted(directory, version);
                CountDownLatch start = new CountDownLatch(1);
                List<Future<Boolean>> attempts = new ArrayList<>();
                for (int writer = 0; writer < writers; writer++) {
                    byte[] content = bytes("writer " + writer);
                    attempts.add(threads.submit(() -> {
                        start.await();
                        return fileSystem().createExclusive(commit, content);
                    }));
                }
                start.countDown();
                List<Integer> winners = new ArrayList<>();
                for (int writer = 0; writer < writers; writer++) {
                    if (attempts.get(writer).get()) {
                        winners.add(writer);
                    }
                }
                assertThat(winners).as("winners of version %s", version).hasSize(1);
                assertThat(text(fileSystem().readIfExists(commit).orElseThrow()))
                        .isEqualTo("writer " + winners.getFirst());
            }
        } finally {
            threads.shutdownNow();
        }
        // nothing but the commits: no temporary object, no rename
        assertThat(fileSystem().listRecursively("%s/race".formatted(root())))
                .extracting(LogFileSystem.FileEntry::location)
                .hasSize(8)
                .allMatch(location -> location.startsWith(directory + "/"));
    }

    @Test
    void logsCommittedByRacingWritersLoseNothing() throws Exception {
        // writers of one log committing at once, each through its own handle: every commit gets a version of
        // its own, the losers of a version re-read and retry, every segment is referenced exactly once
        String root = "%s/logs/raced".formatted(root());
        int writers = 4;
        int commitsEach = 5;
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        List<Future<List<Long>>> results = new ArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        try {
            for (int writer = 0; writer < writers; writer++) {
                int id = writer;
                results.add(threads.submit(() -> {
                    FileStreamLog log = new FileStreamLog(root, fileSystem(), 2);
                    start.await();
                    List<Long> versions = new ArrayList<>();
                    for (int commit = 0; commit < commitsEach; commit++) {
                        String segment = "bucket-%04d/w%s-c%s.arrow".formatted(id % 2, id, commit);
                        try (OutputStream out = fileSystem().create(root + "/" + segment)) {
                            out.write(bytes("segment of writer " + id));
                        }
                        StagedSegment staged = new StagedSegment(id % 2, segment, 1, 24, 0, 0, Optional.empty());
                        versions.add(
                                log.commit(List.of(staged), Optional.empty()).version());
                    }
                    return versions;
                }));
            }
            start.countDown();
            Set<Long> versions = new HashSet<>();
            for (Future<List<Long>> result : results) {
                versions.addAll(result.get());
            }
            long total = (long) writers * commitsEach;
            assertThat(versions).hasSize((int) total).allMatch(version -> version >= 1 && version <= total);
        } finally {
            threads.shutdownNow();
        }
        LogSnapshot snapshot = new FileStreamLog(root, fileSystem(), 2).latestSnapshot();
        assertThat(snapshot.version()).isEqualTo(writers * commitsEach);
        // every segment of every writer is in the log once, offsets dense in each bucket
        List<String> committed = new ArrayList<>();
        for (int bucket = 0; bucket < 2; bucket++) {
            TestFileStreamLog.assertDense(snapshot.bucket(bucket));
            snapshot.bucket(bucket).segments().forEach(segment -> committed.add(segment.path()));
        }
        assertThat(committed).doesNotHaveDuplicates().hasSize(writers * commitsEach);
    }

    @Test
    void segmentsAreWrittenInPartsAndReadWithRangedGets() throws IOException {
        // larger than one part of a multipart upload and than the read-ahead block
        byte[] content = new byte[20 * 1024 * 1024 + 12_345];
        Seeds.random(7).nextBytes(content);
        String segment = "%s/segments/bucket-0000/large.arrow".formatted(alternateRoot());
        try (OutputStream out = fileSystem().create(segment)) {
            // in uneven pieces, as a writer hands them over
            int offset = 0;
            Random sizes = Seeds.random(11);
            while (offset < content.length) {
                int length = Math.min(content.length - offset, 1 + sizes.nextInt(3 * 1024 * 1024));
                out.write(content, offset, length);
                offset += length;
            }
        }
        try (SeekableByteChannel channel = fileSystem().openForRead(segment)) {
            assertThat(channel.size()).isEqualTo(content.length);
            Random positions = Seeds.random(13);
            for (int read = 0; read < 200; read++) {
                int position = positions.nextInt(content.length);
                // mostly small reads (served from the read-ahead block), a few larger than it
                int length = Math.min(
                        content.length - position, read % 20 == 0 ? 5 * 1024 * 1024 : 1 + positions.nextInt(64 * 1024));
                ByteBuffer buffer = ByteBuffer.allocate(length);
                channel.position(position);
                while (buffer.hasRemaining() && channel.read(buffer) > 0) {
                    // fill it
                }
                assertThat(buffer.array())
                        .as("%s bytes at %s", length, position)
                        .isEqualTo(java.util.Arrays.copyOfRange(content, position, position + length));
            }
        }
        String small = "%s/segments/bucket-0001/small.arrow".formatted(root());
        try (OutputStream out = fileSystem().create(small)) {
            out.write(bytes("tiny"));
        }
        assertThat(text(fileSystem().readIfExists(small).orElseThrow())).isEqualTo("tiny");
        assertThatThrownBy(() -> fileSystem().openForRead("%s/segments/missing.arrow".formatted(root())))
                .isInstanceOf(NoSuchFileException.class);
    }

    @Test
    void listingExistsAndDeleteServeTheOrphanSweepAndDrop() throws IOException {
        String root = "%s/listed/log".formatted(alternateRoot());
        List<String> files = List.of(
                root + "/_commits/00000000000000000001.json",
                root + "/_commits/" + LogPublishing.newTemporaryName(),
                root + "/bucket-0000/a.arrow",
                root + "/bucket-0001/b.arrow");
        long before = System.currentTimeMillis();
        for (String file : files) {
            fileSystem().replace(file, bytes(file));
        }
        // a sibling with the same name prefix is not below the directory
        fileSystem().replace("%s/listed/logbook/x".formatted(alternateRoot()), bytes("x"));
        List<LogFileSystem.FileEntry> listed = fileSystem().listRecursively(root + "/");
        assertThat(listed).extracting(LogFileSystem.FileEntry::location).containsExactlyInAnyOrderElementsOf(files);
        assertThat(listed).allSatisfy(entry -> {
            assertThat(entry.sizeBytes()).isEqualTo(bytes(entry.location()).length);
            // the server's clock, in whole seconds (S3 keeps no finer time)
            assertThat(entry.lastModifiedMillis()).isBetween(before - 60_000, System.currentTimeMillis() + 60_000);
        });
        assertThat(fileSystem().exists(files.get(2))).isTrue();
        fileSystem().delete(files.get(2));
        assertThat(fileSystem().exists(files.get(2))).isFalse();
        // deleting what is gone is no error
        fileSystem().delete(files.get(2));
        assertThat(fileSystem().listRecursively(root)).hasSize(3);
        assertThat(fileSystem().listRecursively("%s/missing".formatted(root()))).isEmpty();

        fileSystem().deleteRecursively(root);
        assertThat(fileSystem().listRecursively(root)).isEmpty();
        assertThat(fileSystem().exists("%s/listed/logbook/x".formatted(alternateRoot())))
                .isTrue();
        fileSystem().deleteRecursively(root);
    }

    static byte[] bytes(String text) {
        return text.getBytes(UTF_8);
    }

    static String text(byte[] bytes) {
        return new String(bytes, UTF_8);
    }
}
