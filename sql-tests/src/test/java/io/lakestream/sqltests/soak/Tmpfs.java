package io.lakestream.sqltests.soak;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The warehouse's own small file system (a tmpfs of a fixed size), so that the soak can fill its disk:
 * {@link #fill} writes a filler file until the file system is full, {@link #free} deletes it. Mounting
 * needs root (or CAP_SYS_ADMIN); without it the soak fails with a message saying so.
 */
final class Tmpfs implements AutoCloseable {
    static final String FILLER = "soak-disk-filler";

    private final Path directory;

    private Tmpfs(Path directory) {
        this.directory = directory;
    }

    static Tmpfs mount(Path directory, int megabytes) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        String output =
                run(List.of("mount", "-t", "tmpfs", "-o", "size=" + megabytes + "m", "tmpfs", directory.toString()));
        if (output != null) {
            throw new IllegalStateException(
                    ("Cannot mount a %d MB tmpfs at %s for the warehouse: %s. The soak fills the"
                                    + " warehouse's disk to prove that every process recovers, and needs root (or CAP_SYS_ADMIN)"
                                    + " to mount it. Run it as root, or run it without the disk-full fault: -Dsoak.disk-full=false"
                                    + " (./lakestream bench soak --no-disk-full).")
                            .formatted(megabytes, directory, output));
        }
        return new Tmpfs(directory);
    }

    Path directory() {
        return directory;
    }

    /** Writes the filler until the file system is full; returns its size in bytes. */
    long fill() {
        Path filler = directory.resolve(FILLER);
        long written = 0;
        ByteBuffer block = ByteBuffer.allocate(1 << 20);
        try (FileChannel channel = FileChannel.open(
                filler, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            // big blocks first, then small ones for the last pages
            for (int size : new int[] {1 << 20, 4096}) {
                while (true) {
                    block.clear().limit(size);
                    try {
                        written += channel.write(block);
                    } catch (IOException e) {
                        break;
                    }
                }
            }
        } catch (IOException e) {
            // the file could not even be created: the file system is full already
        }
        return written;
    }

    void free() {
        try {
            Files.deleteIfExists(directory.resolve(FILLER));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete the disk filler", e);
        }
    }

    /** Copies the warehouse (for a failed run's investigation) before the file system goes away. */
    void copyTo(Path target) {
        run(List.of("cp", "-a", directory.toString() + "/.", target.toString()));
    }

    @Override
    public void close() {
        free();
        if (run(List.of("umount", directory.toString())) != null) {
            // a child still has a file open: detach now, the kernel frees it when the last one closes
            run(List.of("umount", "-l", directory.toString()));
        }
    }

    /** Runs a command; null when it succeeded, else what it printed and its exit code. */
    private static String run(List<String> command) {
        try {
            Process process =
                    new ProcessBuilder(command).redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return String.join(" ", command) + " did not finish";
            }
            return process.exitValue() == 0
                    ? null
                    : "%s exited with %d: %s".formatted(String.join(" ", command), process.exitValue(), output);
        } catch (IOException e) {
            return String.join(" ", command) + " could not run: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
