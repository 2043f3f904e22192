package io.lakestream.trino;

import static com.google.common.base.Preconditions.checkArgument;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.ExecutionError;
import com.google.common.util.concurrent.UncheckedExecutionException;
import com.google.inject.Inject;
import io.lakestream.merge.ChangedLongKeys;
import io.lakestream.plan.LakeFile;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;

/**
 * A worker's cache of the primary key column of lake data files, decoded into one {@code long} per row (a
 * key of one {@code integer}, {@code bigint} or {@code date} column), so that a merge with a log tail does
 * not decode a key column the query does not select, on every read of the same lake file.
 *
 * <p>It caches file content only: a lake data file never changes once written (every Iceberg commit,
 * tiering and compaction alike, writes new files under new names), so an entry is valid for every
 * snapshot, time travel included, that lists the file. The entry's key is the file's path, size and row
 * count as the lake's metadata gives them, so a different file at the same path is a different entry.
 * Bounded by {@code lakestream.lake-key-cache.max-size} (8 bytes per row), least recently used first out.
 */
final class LakeKeyCache {
    /** What an entry costs beyond its keys (the key record, the array header, the cache's own entry). */
    private static final long ENTRY_OVERHEAD_BYTES = 160;

    private final long maxBytes;
    private final Optional<Cache<FileKey, FileKeys>> cache;

    /**
     * The keys of one lake file, whether they ascend along the file's rows (checked once, when read), and
     * whether they came from the cache.
     */
    record Keys(long[] keys, boolean ascending, boolean hit) {}

    /** A cache entry: the keys of a file by row, and whether they ascend (compaction sorts by key). */
    private record FileKeys(long[] keys, boolean ascending) {}

    /** A lake data file's identity, as the lake's metadata gives it, and the key column's field id. */
    private record FileKey(String path, long fileSizeBytes, long recordCount, int keyFieldId) {}

    @Inject
    LakeKeyCache(LakestreamConfig config) {
        this(config.getLakeKeyCacheMaxSize().toBytes());
    }

    /** @param maxBytes the bound of the cached keys; 0 disables the cache */
    LakeKeyCache(long maxBytes) {
        checkArgument(maxBytes >= 0, "maxBytes is negative");
        this.maxBytes = maxBytes;
        // one segment: Guava divides the bound among the segments, which would refuse files above a fraction of it
        this.cache = maxBytes == 0
                ? Optional.empty()
                : Optional.of(CacheBuilder.newBuilder()
                        .concurrencyLevel(1)
                        .maximumWeight(maxBytes)
                        .<FileKey, FileKeys>weigher((key, keys) -> weight(keys.keys().length))
                        .build());
    }

    /** True if the keys of a file of this many rows can be kept: the cache is on and the file fits in it. */
    boolean fits(long rows) {
        return cache.isPresent() && rows <= Integer.MAX_VALUE - 16 && weight(rows) <= maxBytes;
    }

    /**
     * The keys of a file that {@link #fits}, by row of the file: from the cache, or read by {@code reader}
     * and kept.
     */
    Keys keys(LakeFile file, int keyFieldId, Supplier<long[]> reader) {
        Cache<FileKey, FileKeys> keys = cache.orElseThrow(() -> new IllegalStateException("the cache is off"));
        FileKey key = new FileKey(file.path(), file.fileSizeBytes(), file.recordCount(), keyFieldId);
        FileKeys cached = keys.getIfPresent(key);
        if (cached != null) {
            return new Keys(cached.keys(), cached.ascending(), true);
        }
        try {
            // concurrent readers of the same file wait for one read
            FileKeys read = keys.get(key, () -> {
                long[] fileKeys = reader.get();
                return new FileKeys(fileKeys, ChangedLongKeys.ascending(fileKeys));
            });
            return new Keys(read.keys(), read.ascending(), false);
        } catch (ExecutionException | UncheckedExecutionException | ExecutionError e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new IllegalStateException("Cannot read the keys of lake file " + file.path(), e.getCause());
        }
    }

    /** The bytes the cached keys take now. */
    long cachedBytes() {
        return cache.map(keys -> keys.asMap().values().stream()
                        .mapToLong(entry -> weight(entry.keys().length))
                        .sum())
                .orElse(0L);
    }

    private static int weight(long rows) {
        return (int) Math.min(Integer.MAX_VALUE, rows * Long.BYTES + ENTRY_OVERHEAD_BYTES);
    }
}
