package io.lakestream.trino;

import io.trino.filesystem.Location;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Locations as Iceberg and the log write them, turned into {@code trino-filesystem} locations. Trino's
 * file system layer picks a file system by scheme, so a location without one (a table created before
 * locations carried a scheme: {@code /data/warehouse/db/t}) and Hadoop's one-slash form
 * ({@code file:/data/...}) become {@code file:///data/...}, which the local file system serves.
 */
final class LakestreamLocations {
    private LakestreamLocations() {}

    static Location of(String location) {
        if (location.startsWith("/")) {
            return Location.of("file://" + location);
        }
        if (location.startsWith("file:/") && !location.startsWith("file://")) {
            return Location.of("file://" + location.substring("file:".length()));
        }
        return Location.of(location);
    }

    /**
     * The path a {@code local:} or {@code file:} location names on the local file system whose root is
     * {@code root} ({@code local.location}), resolved the way Trino's local file system resolves it; empty
     * for a location of another file system.
     */
    static Optional<Path> localPath(Location location, Path root) {
        Optional<String> scheme = location.scheme();
        if (scheme.isEmpty() || !(scheme.get().equals("local") || scheme.get().equals("file"))) {
            return Optional.empty();
        }
        if (location.host().isPresent() || location.userInfo().isPresent()) {
            return Optional.empty();
        }
        Path path = root.resolve(location.path()).normalize();
        if (!path.startsWith(root)) {
            throw new IllegalArgumentException(
                    "Location is outside of the local file system's root %s: %s".formatted(root, location));
        }
        return Optional.of(path);
    }
}
