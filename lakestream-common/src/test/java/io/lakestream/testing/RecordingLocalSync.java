package io.lakestream.testing;

import io.lakestream.io.LocalSync;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalInt;
import java.util.stream.IntStream;

/**
 * Syncs for real ({@link LocalSync#FSYNC}) and records every force and directory sync in order, with marks
 * the test adds at publishing points (e.g. a tiering hook at the lake commit).
 */
public final class RecordingLocalSync implements LocalSync {
    public enum Kind {
        FORCE,
        SYNC_DIRECTORY,
        MARK
    }

    public record Event(Kind kind, String name) {
        @Override
        public String toString() {
            return kind + " " + name;
        }
    }

    private final List<Event> events = new ArrayList<>();

    @Override
    public void force(Path file, FileChannel channel) throws IOException {
        FSYNC.force(file, channel);
        record(Kind.FORCE, file.toString());
    }

    @Override
    public void syncDirectory(Path directory) throws IOException {
        FSYNC.syncDirectory(directory);
        record(Kind.SYNC_DIRECTORY, directory.toString());
    }

    /** Records a publishing point. */
    public void mark(String name) {
        record(Kind.MARK, name);
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    private synchronized void record(Kind kind, String name) {
        events.add(new Event(kind, name));
    }

    /**
     * Checks that {@code file} was forced, then its directory synced, both before the event at {@code
     * before}.
     */
    public static void assertDurableBefore(List<Event> history, Path file, int before, String what) {
        OptionalInt forced = first(history, Kind.FORCE, file.toString(), 0, before);
        if (forced.isEmpty()) {
            throw new AssertionError("%s %s was not forced to disk before %s; history: %s"
                    .formatted(what, file, history.get(before), history));
        }
        if (first(history, Kind.SYNC_DIRECTORY, file.getParent().toString(), forced.getAsInt(), before)
                .isEmpty()) {
            throw new AssertionError(
                    "the directory of %s %s was not synced after it was forced and before %s; history: %s"
                            .formatted(what, file, history.get(before), history));
        }
    }

    /** The index of the first event of this kind and name in {@code [from, to)}. */
    public static OptionalInt first(List<Event> history, Kind kind, String name, int from, int to) {
        return IntStream.range(from, to)
                .filter(i ->
                        history.get(i).kind() == kind && history.get(i).name().equals(name))
                .findFirst();
    }
}
