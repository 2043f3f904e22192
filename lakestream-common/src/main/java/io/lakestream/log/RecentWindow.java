package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * An immutable, insertion-ordered map of the last {@code limit} entries remembered, as a log state keeps its
 * idempotency keys and swept paths: {@link #remember} behaves exactly like {@code put} of each new entry into a
 * {@link java.util.LinkedHashMap} (a key already present keeps its place and takes the new value) followed by
 * removing the eldest entries while there are more than {@code limit}, but it shares storage with the window it
 * was derived from ({@link ChunkedList}), so it costs O(entries added) instead of a copy of the whole window.
 * Iteration order, and therefore a checkpoint's JSON, is the {@code LinkedHashMap}'s.
 */
final class RecentWindow extends AbstractMap<String, Long> {
    /** Slots per chunk: a fork (two versions derived from one) copies at most one chunk. */
    private static final int CHUNK_CAPACITY = 512;

    private static final Function<Map.Entry<String, Long>, String> KEY = Map.Entry::getKey;

    private static final ConcurrentHashMap<Integer, RecentWindow> EMPTY = new ConcurrentHashMap<>();

    private final int limit;
    private final ChunkedList<Map.Entry<String, Long>> entries;
    private final Set<Map.Entry<String, Long>> entrySet = new Entries();

    private RecentWindow(int limit, ChunkedList<Map.Entry<String, Long>> entries) {
        this.limit = limit;
        this.entries = entries;
    }

    /**
     * {@code map} as a window of the last {@code limit} entries, in its iteration order: the same object if it is
     * one. A larger map (never written by this code) is kept whole, as it was read; the next entry remembered
     * trims it.
     */
    static RecentWindow of(Map<String, Long> map, int limit) {
        requireNonNull(map, "map is null");
        checkArgument(limit > 0, "limit must be positive");
        if (map instanceof RecentWindow window && window.limit == limit) {
            return window;
        }
        if (map.isEmpty()) {
            // every split's log state on a worker has empty windows: share one per limit
            return EMPTY.computeIfAbsent(
                    limit, ignored -> new RecentWindow(limit, ChunkedList.empty(Math.min(CHUNK_CAPACITY, limit), KEY)));
        }
        List<Map.Entry<String, Long>> copied = map.entrySet().stream()
                .map(entry -> Map.entry(entry.getKey(), entry.getValue()))
                .toList();
        // the index needs a key to occur once per capacity consecutive entries: keys are unique in a window of
        // at least capacity entries
        return new RecentWindow(limit, ChunkedList.copyOf(copied, Math.min(CHUNK_CAPACITY, limit), KEY));
    }

    /** This window after remembering each of {@code added} with {@code value}, in order. */
    RecentWindow remember(List<String> added, long value) {
        ChunkedList<Map.Entry<String, Long>> next = entries;
        for (String key : added) {
            Map.Entry<String, Long> entry = Map.entry(key, value);
            int index = next.indexOfKey(key);
            next = index < 0 ? next.append(entry) : next.set(index, entry, true);
        }
        if (next.size() > limit) {
            next = next.dropFirst(next.size() - limit);
        }
        return new RecentWindow(limit, next);
    }

    @Override
    public int size() {
        return entries.size();
    }

    @Override
    public boolean containsKey(Object key) {
        return key != null && entries.indexOfKey(key) >= 0;
    }

    @Override
    public Long get(Object key) {
        int index = key == null ? -1 : entries.indexOfKey(key);
        return index < 0 ? null : entries.get(index).getValue();
    }

    @Override
    public Set<Map.Entry<String, Long>> entrySet() {
        return entrySet;
    }

    private final class Entries extends AbstractSet<Map.Entry<String, Long>> {
        @Override
        public Iterator<Map.Entry<String, Long>> iterator() {
            return entries.iterator();
        }

        @Override
        public int size() {
            return entries.size();
        }
    }
}
