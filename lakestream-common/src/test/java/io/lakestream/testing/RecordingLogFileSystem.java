package io.lakestream.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.log.ForwardingLogFileSystem;
import io.lakestream.log.LogCommit;
import io.lakestream.log.LogFileSystem;
import io.lakestream.log.LogJson;
import io.lakestream.log.LogPaths;
import io.lakestream.log.SegmentFile;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * A {@link LogFileSystem} decorator that records, in order, the operations durability depends on: a file
 * created, forced and closed, a directory synced, a commit published. {@link #assertCommitsDurable} then
 * checks every published commit against that history.
 */
public final class RecordingLogFileSystem extends ForwardingLogFileSystem {
    private static final Pattern COMMIT_FILE = Pattern.compile(".*/_commits/\\d{20}\\.json");

    public enum Kind {
        CREATE,
        FORCE,
        CLOSE,
        SYNC_DIRECTORY,
        PUBLISH
    }

    /** @param content what was published ({@link Kind#PUBLISH} only) */
    public record Event(Kind kind, String location, Optional<byte[]> content) {
        @Override
        public String toString() {
            return kind + " " + location;
        }
    }

    private final List<Event> events = new ArrayList<>();

    public RecordingLogFileSystem(LogFileSystem delegate) {
        super(delegate);
    }

    public synchronized List<Event> events() {
        return List.copyOf(events);
    }

    private synchronized void record(Kind kind, String location) {
        events.add(new Event(kind, location, Optional.empty()));
    }

    /**
     * Every commit published under {@code paths} (at least {@code minimumCommits} of them): each segment it
     * adds was created, forced, closed and its directory synced, in that order, before the commit was
     * published; the commit's directory was synced after it was published, before the next publish.
     */
    public void assertCommitsDurable(LogPaths paths, int minimumCommits) {
        List<Event> history = events();
        String commitDirectory = paths.root() + "/" + LogPaths.COMMITS_DIRECTORY;
        int commits = 0;
        for (int published = 0; published < history.size(); published++) {
            Event event = history.get(published);
            if (event.kind() != Kind.PUBLISH
                    || !COMMIT_FILE.matcher(event.location()).matches()) {
                continue;
            }
            commits++;
            LogCommit commit = read(event.content().orElseThrow());
            for (SegmentFile segment : commit.added()) {
                String location = paths.resolve(segment.path());
                int created = indexOf(history, Kind.CREATE, location, 0, published)
                        .orElseThrow(
                                () -> new AssertionError("segment %s of %s was not created before it was published: %s"
                                        .formatted(location, event.location(), history)));
                int forced = indexOf(history, Kind.FORCE, location, created, published)
                        .orElseThrow(() -> new AssertionError(
                                "segment %s of %s was not forced to disk before the commit was published; history: %s"
                                        .formatted(location, event.location(), history)));
                int closed = indexOf(history, Kind.CLOSE, location, forced, published)
                        .orElseThrow(() -> new AssertionError("segment %s of %s was not closed after it was forced: %s"
                                .formatted(location, event.location(), history)));
                assertThat(closed).isGreaterThan(forced);
                String directory = location.substring(0, location.lastIndexOf('/'));
                assertThat(indexOf(history, Kind.SYNC_DIRECTORY, directory, created, published))
                        .as(
                                "directory %s of segment %s synced after the segment was created and before %s was published",
                                directory, location, event.location())
                        .isPresent();
            }
            int nextPublish = IntStream.range(published + 1, history.size())
                    .filter(i -> history.get(i).kind() == Kind.PUBLISH)
                    .findFirst()
                    .orElse(history.size());
            assertThat(indexOf(history, Kind.SYNC_DIRECTORY, commitDirectory, published, nextPublish))
                    .as(
                            "commit directory %s synced after %s was published (and before the next publish)",
                            commitDirectory, event.location())
                    .isPresent();
        }
        assertThat(commits).as("commits published").isGreaterThanOrEqualTo(minimumCommits);
    }

    private static OptionalInt indexOf(List<Event> history, Kind kind, String location, int from, int to) {
        return IntStream.range(from, to)
                .filter(i -> history.get(i).kind() == kind
                        && history.get(i).location().equals(location))
                .findFirst();
    }

    private static LogCommit read(byte[] json) {
        try {
            return LogJson.read(json, LogCommit.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public OutputStream create(String location) throws IOException {
        OutputStream stream = super.create(location);
        record(Kind.CREATE, location);
        return new FilterOutputStream(stream) {
            @Override
            public void write(byte[] bytes, int offset, int length) throws IOException {
                out.write(bytes, offset, length);
            }

            @Override
            public void close() throws IOException {
                super.close();
                record(Kind.CLOSE, location);
            }
        };
    }

    @Override
    public OutputChannel createChannel(String location) throws IOException {
        OutputChannel channel = super.createChannel(location);
        record(Kind.CREATE, location);
        return new OutputChannel() {
            @Override
            public void force() throws IOException {
                channel.force();
                record(Kind.FORCE, location);
            }

            @Override
            public int write(ByteBuffer source) throws IOException {
                return channel.write(source);
            }

            @Override
            public boolean isOpen() {
                return channel.isOpen();
            }

            @Override
            public void close() throws IOException {
                channel.close();
                record(Kind.CLOSE, location);
            }
        };
    }

    @Override
    public void syncDirectory(String location) throws IOException {
        super.syncDirectory(location);
        record(Kind.SYNC_DIRECTORY, location);
    }

    @Override
    public boolean createExclusive(String location, byte[] content) throws IOException {
        boolean created = super.createExclusive(location, content);
        if (created) {
            synchronized (this) {
                events.add(new Event(Kind.PUBLISH, location, Optional.of(content.clone())));
            }
        }
        return created;
    }
}
