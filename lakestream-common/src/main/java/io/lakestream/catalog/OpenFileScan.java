package io.lakestream.catalog;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which processes of this machine have a SQLite database or its rollback journal open, read from Linux's
 * {@code /proc/<pid>/fd}: the evidence that decides whether the holder of an anonymous SQLite lock
 * directory (one without a Lakestream owner record) is alive. A live holder necessarily has the database
 * open, and a live writer its journal.
 *
 * <p>Only processes whose file-system user is the lock directory's owner can have created it, so only
 * those are looked at; one whose open files cannot be read (another user's, a non-dumpable process)
 * makes the scan inconclusive. A process in a child PID namespace (a container) does not see every
 * process that may use the file, and a network file system is used by other machines' processes too, so
 * neither can conclude anything either.
 */
final class OpenFileScan {
    private static final Path PROC = Path.of("/proc");
    // file systems that only this machine uses (a container's overlay included)
    private static final Set<String> LOCAL_FILE_SYSTEMS =
            Set.of("ext2", "ext3", "ext4", "xfs", "btrfs", "zfs", "f2fs", "tmpfs", "overlay", "jfs", "reiserfs");

    private OpenFileScan() {}

    /**
     * What the processes of user {@code uid} have open.
     *
     * @param database users of this file
     * @param journal users of this file, if it exists
     */
    static Result scan(Path database, Path journal, int uid) {
        Optional<String> incomplete = incompleteView().or(() -> sharedFileSystem(database));
        if (incomplete.isPresent()) {
            return Result.inconclusive(incomplete.get());
        }
        Optional<Object> databaseKey = fileKey(database);
        Optional<Object> journalKey = fileKey(journal);
        Set<Long> databaseUsers = new HashSet<>();
        Set<Long> journalUsers = new HashSet<>();
        Set<Long> uninspectable = new HashSet<>();
        try (DirectoryStream<Path> processes = Files.newDirectoryStream(PROC, entry -> isPid(entry.getFileName()))) {
            for (Path process : processes) {
                long pid = Long.parseLong(process.getFileName().toString());
                if (!fileSystemUser(process).map(user -> user == uid).orElse(false)) {
                    continue;
                }
                try (DirectoryStream<Path> descriptors = Files.newDirectoryStream(process.resolve("fd"))) {
                    for (Path descriptor : descriptors) {
                        if (opens(descriptor, database, databaseKey)) {
                            databaseUsers.add(pid);
                        }
                        if (opens(descriptor, journal, journalKey)) {
                            journalUsers.add(pid);
                        }
                    }
                } catch (AccessDeniedException e) {
                    uninspectable.add(pid);
                } catch (NoSuchFileException e) {
                    // the process ended
                }
            }
        } catch (IOException e) {
            return Result.inconclusive("cannot list the processes in /proc: " + e);
        }
        if (!uninspectable.isEmpty()) {
            return Result.inconclusive(
                    "the open files of processes %s of user %d cannot be read".formatted(uninspectable, uid));
        }
        return new Result(Optional.empty(), databaseUsers, journalUsers);
    }

    /** Why this process cannot see every process on the machine, if it cannot. */
    private static Optional<String> incompleteView() {
        Path status = PROC.resolve("self/status");
        if (!Files.isReadable(status)) {
            return Optional.of("there is no /proc to tell which processes have the catalog open (not Linux)");
        }
        try {
            for (String line : Files.readAllLines(status)) {
                // NSpid lists the process's id in each PID namespace from the machine's down to its own
                if (line.startsWith("NSpid:")
                        && line.substring("NSpid:".length()).trim().split("\\s+").length > 1) {
                    return Optional.of("this process runs in a child PID namespace (a container) and does not see"
                            + " every process that may use the catalog");
                }
            }
        } catch (IOException e) {
            return Optional.of("cannot read " + status + ": " + e);
        }
        return Optional.empty();
    }

    /** Why the database's file system may be used from other machines too, whose processes /proc does not list. */
    private static Optional<String> sharedFileSystem(Path database) {
        try {
            String type = Files.getFileStore(database).type();
            return LOCAL_FILE_SYSTEMS.contains(type)
                    ? Optional.empty()
                    : Optional.of(
                            "the catalog is on a %s file system, which other machines may use too".formatted(type));
        } catch (IOException e) {
            return Optional.of("cannot tell the file system of " + database + ": " + e);
        }
    }

    private static boolean isPid(Path name) {
        String text = name.toString();
        return !text.isEmpty() && text.chars().allMatch(Character::isDigit);
    }

    /** The process's file-system user id (the fourth number of the {@code Uid:} line of its status). */
    private static Optional<Integer> fileSystemUser(Path process) {
        try {
            for (String line : Files.readAllLines(process.resolve("status"))) {
                if (line.startsWith("Uid:")) {
                    List<String> ids =
                            List.of(line.substring("Uid:".length()).trim().split("\\s+"));
                    return Optional.of(Integer.parseInt(ids.get(3)));
                }
            }
        } catch (IOException | RuntimeException e) {
            // ended, or not a process directory
        }
        return Optional.empty();
    }

    /** Whether the open file behind {@code descriptor} is {@code file} (by name first, then by inode). */
    private static boolean opens(Path descriptor, Path file, Optional<Object> fileKey) {
        if (fileKey.isEmpty()) {
            return false;
        }
        try {
            Path target = Files.readSymbolicLink(descriptor);
            if (target.getFileName() == null
                    || !target.getFileName()
                            .toString()
                            .startsWith(file.getFileName().toString())) {
                return false;
            }
            // the magic link leads to the open file itself, whatever path it was opened by
            return fileKey.get()
                    .equals(Files.readAttributes(descriptor, BasicFileAttributes.class)
                            .fileKey());
        } catch (IOException e) {
            return false;
        }
    }

    private static Optional<Object> fileKey(Path file) {
        try {
            return Optional.ofNullable(
                    Files.readAttributes(file, BasicFileAttributes.class).fileKey());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * @param inconclusive why the scan cannot tell, if it cannot
     * @param databaseUsers processes that have the database open
     * @param journalUsers processes that have the journal open
     */
    record Result(Optional<String> inconclusive, Set<Long> databaseUsers, Set<Long> journalUsers) {
        Result {
            requireNonNull(inconclusive, "inconclusive is null");
            databaseUsers = ImmutableSet.copyOf(databaseUsers);
            journalUsers = ImmutableSet.copyOf(journalUsers);
        }

        static Result inconclusive(String reason) {
            return new Result(Optional.of(reason), Set.of(), Set.of());
        }
    }
}
