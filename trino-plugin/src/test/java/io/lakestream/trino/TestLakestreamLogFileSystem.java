package io.lakestream.trino;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.io.LocalSync;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.StagedSegment;
import io.trino.filesystem.Location;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.filesystem.memory.MemoryFileSystem;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SeekableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The log's file operations over Trino's file systems; above all the atomic create-if-absent of commits. */
final class TestLakestreamLogFileSystem {
    @Test
    void createExclusiveOnLocalFileSystem() throws Exception {
        Path root = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        LakestreamLogFileSystem log = new LakestreamLogFileSystem(new LocalFileSystem(root), Optional.of(root));
        assertCreateExclusive(log, "local:///t/log/_commits/00000000000000000001.json");
        assertThat(root.resolve("t/log/_commits/00000000000000000001.json")).hasContent("first");
        // no temporary file is left next to the commit
        try (var names = Files.list(root.resolve("t/log/_commits"))) {
            assertThat(names.map(path -> path.getFileName().toString())).containsExactly("00000000000000000001.json");
        }
        assertRace(log, "local:///t/log/_commits/00000000000000000002.json");
    }

    @Test
    void createExclusiveOnFileSchemeRootedAtSlash() throws Exception {
        Path directory = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        LakestreamLogFileSystem log =
                new LakestreamLogFileSystem(new LocalFileSystem(Path.of("/")), Optional.of(Path.of("/")));
        // the three spellings of a local location name the same file
        String commit = directory.resolve("_commits/00000000000000000001.json").toString();
        assertThat(log.createExclusive("file://" + commit, "first".getBytes(UTF_8)))
                .isTrue();
        assertThat(log.createExclusive("file:" + commit, "second".getBytes(UTF_8)))
                .isFalse();
        assertThat(log.createExclusive(commit, "third".getBytes(UTF_8))).isFalse();
        assertThat(Path.of(commit)).hasContent("first");
    }

    @Test
    void createExclusiveThroughTheFileSystem() throws Exception {
        // a file system with its own create-if-absent (as S3, GCS and Azure have) is asked for it
        LakestreamLogFileSystem log = new LakestreamLogFileSystem(new MemoryFileSystem(), Optional.empty());
        assertCreateExclusive(log, "memory:///t/log/_commits/00000000000000000001.json");
        assertRace(log, "memory:///t/log/_commits/00000000000000000002.json");
    }

    @Test
    void fileSystemWithoutCreateExclusiveIsRefused() throws Exception {
        Path root = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        TrinoFileSystem fileSystem = new LocalFileSystem(root);
        // without its root, the log cannot publish on the local path: only the file system could, and it cannot
        LakestreamLogFileSystem log = new LakestreamLogFileSystem(fileSystem, Optional.empty());
        assertThatThrownBy(() -> log.createExclusive("local:///_commits/1.json", "x".getBytes(UTF_8)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("local:///_commits/1.json")
                .hasMessageContaining("cannot create a file atomically");
        assertThat(fileSystem
                        .newInputFile(Location.of("local:///_commits/1.json"))
                        .exists())
                .isFalse();
    }

    @Test
    void readWriteAndDelete() throws Exception {
        Path root = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        LakestreamLogFileSystem log = new LakestreamLogFileSystem(new LocalFileSystem(root), Optional.of(root));
        String segment = "local:///t/log/bucket-0000/a.arrow";
        try (OutputStream out = log.create(segment)) {
            out.write("0123456789".getBytes(UTF_8));
        }
        assertThat(log.exists(segment)).isTrue();
        try (SeekableByteChannel channel = log.openForRead(segment)) {
            assertThat(channel.size()).isEqualTo(10);
            channel.position(6);
            ByteBuffer buffer = ByteBuffer.allocate(8);
            assertThat(channel.read(buffer)).isEqualTo(4);
            assertThat(new String(buffer.array(), 0, 4, UTF_8)).isEqualTo("6789");
            assertThat(channel.read(buffer)).isEqualTo(-1);
        }
        String hint = "local:///t/log/_commits/_last";
        assertThat(log.readIfExists(hint)).isEmpty();
        log.replace(hint, "1".getBytes(UTF_8));
        log.replace(hint, "2".getBytes(UTF_8));
        assertThat(log.readIfExists(hint))
                .hasValueSatisfying(content -> assertThat(content).isEqualTo("2".getBytes(UTF_8)));

        log.delete(segment);
        assertThat(log.exists(segment)).isFalse();
        log.deleteRecursively("local:///t/log");
        assertThat(root.resolve("t/log")).doesNotExist();
        log.deleteRecursively("local:///t/log");
    }

    /**
     * A commit through Trino's log file system on a local path: the segment is forced (Trino's own local
     * stream never is) and its directory synced before the commit is published, the commit's directory after.
     */
    @Test
    void localSegmentsAndCommitsAreDurable() throws Exception {
        Path root = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        List<String> syncs = new CopyOnWriteArrayList<>();
        LocalSync recording = new LocalSync() {
            @Override
            public void force(Path file, FileChannel channel) throws IOException {
                FSYNC.force(file, channel);
                syncs.add("force " + file);
            }

            @Override
            public void syncDirectory(Path directory) throws IOException {
                FSYNC.syncDirectory(directory);
                syncs.add("sync " + directory);
            }
        };
        LakestreamLogFileSystem fileSystem =
                new LakestreamLogFileSystem(new LocalFileSystem(root), Optional.of(root), recording);
        FileStreamLog log = new FileStreamLog("local:///t/log", fileSystem, 1);
        String segment = "bucket-0000/a.arrow";
        try (LogFileSystem.OutputChannel channel =
                fileSystem.createChannel(log.paths().resolve(segment))) {
            channel.write(ByteBuffer.wrap("0123456789".getBytes(UTF_8)));
            channel.force();
        }
        int afterSegment = syncs.size();
        log.commit(List.of(new StagedSegment(0, segment, 1, 10, 0, 0, Optional.empty())), Optional.empty());

        assertThat(syncs.subList(0, afterSegment)).contains("force " + root.resolve("t/log/bucket-0000/a.arrow"));
        assertThat(syncs.subList(afterSegment, syncs.size()))
                .containsSubsequence(
                        "sync " + root.resolve("t/log/bucket-0000"), "sync " + root.resolve("t/log/_commits"));
        assertThat(root.resolve("t/log/_commits/00000000000000000001.json")).exists();
    }

    @Test
    void listRecursivelyInTheCallersForm() throws Exception {
        Path directory = Files.createTempDirectory("lakestream-log-fs").toRealPath();
        LakestreamLogFileSystem log =
                new LakestreamLogFileSystem(new LocalFileSystem(Path.of("/")), Optional.of(Path.of("/")));
        String root = "file:" + directory + "/log"; // Hadoop's one-slash form, as the log may be configured
        for (String file :
                List.of("bucket-0000/a.arrow", "bucket-0001/b.arrow", "_commits/00000000000000000001.json")) {
            try (OutputStream out = log.create(root + "/" + file)) {
                out.write("abc".getBytes(UTF_8));
            }
        }
        List<String> locations = log.listRecursively(root).stream()
                .map(entry -> {
                    assertThat(entry.sizeBytes()).isEqualTo(3);
                    assertThat(entry.lastModifiedMillis()).isPositive();
                    return entry.location();
                })
                .toList();
        assertThat(locations)
                .containsExactlyInAnyOrder(
                        root + "/bucket-0000/a.arrow",
                        root + "/bucket-0001/b.arrow",
                        root + "/_commits/00000000000000000001.json");
        assertThat(log.listRecursively(root + "/missing")).isEmpty();

        LakestreamLogFileSystem memory = new LakestreamLogFileSystem(new MemoryFileSystem(), Optional.empty());
        try (OutputStream out = memory.create("memory:///t/log/bucket-0002/c.arrow")) {
            out.write(1);
        }
        assertThat(memory.listRecursively("memory:///t/log/"))
                .singleElement()
                .satisfies(entry -> assertThat(entry.location()).isEqualTo("memory:///t/log/bucket-0002/c.arrow"));
    }

    @Test
    void locations() {
        assertThat(LakestreamLocations.of("/data/w/t").toString()).isEqualTo("file:///data/w/t");
        assertThat(LakestreamLocations.of("file:/data/w/t").toString()).isEqualTo("file:///data/w/t");
        assertThat(LakestreamLocations.of("file:///data/w/t").toString()).isEqualTo("file:///data/w/t");
        assertThat(LakestreamLocations.of("s3://bucket/w/t").toString()).isEqualTo("s3://bucket/w/t");
        assertThat(LakestreamLocations.localPath(Location.of("local:///a/b"), Path.of("/root")))
                .contains(Path.of("/root/a/b"));
        assertThat(LakestreamLocations.localPath(Location.of("s3://bucket/a"), Path.of("/root")))
                .isEmpty();
        assertThatThrownBy(() -> LakestreamLocations.localPath(Location.of("local:///../x"), Path.of("/root")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertCreateExclusive(LakestreamLogFileSystem log, String commit) throws IOException {
        assertThat(log.createExclusive(commit, "first".getBytes(UTF_8))).isTrue();
        assertThat(log.createExclusive(commit, "second".getBytes(UTF_8))).isFalse();
        assertThat(log.readIfExists(commit))
                .hasValueSatisfying(content -> assertThat(content).isEqualTo("first".getBytes(UTF_8)));
    }

    /** Writers racing for one commit file: exactly one wins, and its content is the file's. */
    private static void assertRace(LakestreamLogFileSystem log, String commit) throws Exception {
        int writers = 8;
        ExecutorService threads = Executors.newFixedThreadPool(writers);
        try {
            List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                byte[] content = ("writer " + i).getBytes(UTF_8);
                results.add(threads.submit(() -> log.createExclusive(commit, content)));
            }
            int winner = -1;
            for (int i = 0; i < writers; i++) {
                if (results.get(i).get()) {
                    assertThat(winner).as("only one writer wins").isEqualTo(-1);
                    winner = i;
                }
            }
            assertThat(winner).isNotEqualTo(-1);
            byte[] expected = ("writer " + winner).getBytes(UTF_8);
            assertThat(log.readIfExists(commit))
                    .hasValueSatisfying(content -> assertThat(content).isEqualTo(expected));
        } finally {
            threads.shutdownNow();
        }
    }
}
