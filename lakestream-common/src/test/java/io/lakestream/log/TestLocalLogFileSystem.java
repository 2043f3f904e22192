package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.testing.Seeds;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link LocalLogFileSystem#deleteRecursively} while other processes still remove files of the same log: a
 * {@code DROP TABLE} whose writer releases its lease, or whose orphan sweep deletes a staged segment, at the same
 * moment. A file that vanished under the delete is deleted as far as the drop is concerned; before, the drop
 * failed with {@code NoSuchFileException} (seen in CI as {@code LOG_IO_ERROR} from {@code
 * TestLakestreamDroppedTableWrite}).
 */
@ExtendWith(Seeds.class)
class TestLocalLogFileSystem {
    private static final int ROUNDS = 200;
    private static final int FILES = 24;

    @TempDir
    Path directory;

    @Test
    void deleteRecursivelyToleratesFilesRemovedByOthersMeanwhile() throws Exception {
        LocalLogFileSystem fileSystem = new LocalLogFileSystem();
        Random random = Seeds.random(20261202L);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            for (int round = 0; round < ROUNDS; round++) {
                Path root = directory.resolve("log-" + round);
                List<Path> files = new ArrayList<>();
                for (int i = 0; i < FILES; i++) {
                    Path file = root.resolve(i % 3 == 0 ? "_leases" : "bucket-000" + (i % 4))
                            .resolve(i + ".arrow");
                    Files.createDirectories(file.getParent());
                    Files.write(file, new byte[] {(byte) i});
                    files.add(file);
                }
                Collections.shuffle(files, random);
                CountDownLatch start = new CountDownLatch(1);
                CompletableFuture<Void> remover = CompletableFuture.runAsync(
                        () -> {
                            awaitQuietly(start);
                            for (Path file : files.subList(0, FILES / 2)) {
                                try {
                                    Files.deleteIfExists(file);
                                } catch (IOException e) {
                                    throw new UncheckedIOException(e);
                                }
                            }
                        },
                        other);
                start.countDown();
                fileSystem.deleteRecursively(root.toUri().toString());
                remover.get(60, TimeUnit.SECONDS);
                assertThat(root).as("round %s", round).doesNotExist();
            }
        } finally {
            other.shutdownNow();
        }
    }

    @Test
    void deleteRecursivelyOfAMissingDirectoryIsNoError() throws IOException {
        new LocalLogFileSystem()
                .deleteRecursively(directory.resolve("missing").toUri().toString());
        assertThat(directory.resolve("missing")).doesNotExist();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
