package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * An immutable list that shares its storage with the lists it was derived from, so that the log state of the
 * next version costs what the commit changed, not a copy of everything retained: {@link #append} and
 * {@link #dropFirst} are O(1) amortized, {@link #set} copies one chunk.
 *
 * <p>Elements live in fixed-size chunks; element {@code i} is at position {@code head + i}, in chunk {@code
 * position / capacity}. Every chunk but the last is full. A chunk is never changed in a slot a list can see:
 * appending writes the next free slot of the last chunk in place only if no other list derived from the same
 * one has written it (a compare-and-set on the chunk's claimed count); the loser of that race, or a list that
 * is not the newest of its line, copies the part of the chunk it sees. Lists are therefore safe to share
 * between threads: the slots a list reads were written before it was created, and it reaches them only through
 * final fields.
 *
 * <p>An indexed list ({@code keyOf} given) keeps, per chunk, a map from each element's key to its slot, for
 * {@link #indexOfKey}. It requires that a key occur at most once among any {@code capacity} consecutive elements
 * of a line of lists (the recent-entries window guarantees it: its keys are unique and its capacity is at most
 * its limit), so one slot per key and chunk is enough.
 */
final class ChunkedList<T> extends AbstractList<T> implements RandomAccess {
    private final int capacity;
    private final Function<? super T, ?> keyOf;
    private final Chunk[] chunks;
    private final int head;
    private final int size;

    private ChunkedList(int capacity, Function<? super T, ?> keyOf, Chunk[] chunks, int head, int size) {
        this.capacity = capacity;
        this.keyOf = keyOf;
        this.chunks = chunks;
        this.head = head;
        this.size = size;
    }

    /** An empty list with chunks of {@code capacity} slots, indexed by {@code keyOf} if it is not null. */
    static <T> ChunkedList<T> empty(int capacity, Function<? super T, ?> keyOf) {
        checkArgument(capacity > 0, "capacity must be positive");
        return new ChunkedList<>(capacity, keyOf, new Chunk[0], 0, 0);
    }

    /** {@code elements} as such a list: the same list if it already is one of this shape, else a copy. */
    @SuppressWarnings("unchecked")
    static <T> ChunkedList<T> copyOf(List<? extends T> elements, int capacity, Function<? super T, ?> keyOf) {
        if (elements instanceof ChunkedList<?> list && list.capacity == capacity && list.keyOf == keyOf) {
            return (ChunkedList<T>) list;
        }
        int count = elements.size();
        Chunk[] chunks = new Chunk[(count + capacity - 1) / capacity];
        int position = 0;
        for (T element : elements) {
            int chunk = position / capacity;
            if (chunks[chunk] == null) {
                chunks[chunk] = new Chunk(capacity, keyOf != null);
            }
            chunks[chunk].write(position % capacity, requireNonNull(element, "element is null"), keyOf);
            position++;
        }
        checkArgument(position == count, "the list changed while it was copied");
        for (Chunk chunk : chunks) {
            chunk.claimed.set(Math.min(capacity, count));
            count -= capacity;
        }
        return new ChunkedList<>(capacity, keyOf, chunks, 0, position);
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    @SuppressWarnings("unchecked")
    public T get(int index) {
        Objects.checkIndex(index, size);
        int position = head + index;
        return (T) chunks[position / capacity].items[position % capacity];
    }

    /** This list with {@code element} at the end. */
    ChunkedList<T> append(T element) {
        requireNonNull(element, "element is null");
        int last = chunks.length - 1;
        int used = last < 0 ? capacity : head + size - last * capacity;
        if (used == capacity) {
            Chunk chunk = new Chunk(capacity, keyOf != null);
            chunk.write(0, element, keyOf);
            chunk.claimed.set(1);
            Chunk[] next = Arrays.copyOf(chunks, chunks.length + 1);
            next[last + 1] = chunk;
            return new ChunkedList<>(capacity, keyOf, next, size == 0 ? 0 : head, size + 1);
        }
        Chunk chunk = chunks[last];
        if (chunk.claimed.compareAndSet(used, used + 1)) {
            // the slot is ours: no list that exists sees it
            chunk.write(used, element, keyOf);
            return new ChunkedList<>(capacity, keyOf, chunks, head, size + 1);
        }
        // a list derived from the same one appended first: continue on a copy of what this list sees
        Chunk copy = chunk.copy(used, keyOf);
        copy.write(used, element, keyOf);
        copy.claimed.set(used + 1);
        Chunk[] next = chunks.clone();
        next[last] = copy;
        return new ChunkedList<>(capacity, keyOf, next, head, size + 1);
    }

    /** This list without its first {@code count} elements. */
    ChunkedList<T> dropFirst(int count) {
        checkArgument(count >= 0 && count <= size, "cannot drop %s of %s elements", count, size);
        if (count == 0) {
            return this;
        }
        if (count == size) {
            return new ChunkedList<>(capacity, keyOf, new Chunk[0], 0, 0);
        }
        int position = head + count;
        int dropped = position / capacity;
        Chunk[] rest = dropped == 0 ? chunks : Arrays.copyOfRange(chunks, dropped, chunks.length);
        return new ChunkedList<>(capacity, keyOf, rest, position - dropped * capacity, size - count);
    }

    /** This list with {@code element} at {@code index}; for an indexed list, the key must stay the same. */
    ChunkedList<T> set(int index, T element, boolean sameKey) {
        Objects.checkIndex(index, size);
        checkArgument(keyOf == null || sameKey, "an indexed element is only replaced by one with the same key");
        int position = head + index;
        int chunkIndex = position / capacity;
        int last = chunks.length - 1;
        int visible = chunkIndex == last ? head + size - last * capacity : capacity;
        Chunk copy = chunks[chunkIndex].copy(visible, keyOf);
        copy.write(position % capacity, requireNonNull(element, "element is null"), keyOf);
        copy.claimed.set(visible);
        Chunk[] next = chunks.clone();
        next[chunkIndex] = copy;
        return new ChunkedList<>(capacity, keyOf, next, head, size);
    }

    /** The index of the element whose key is {@code key}, or -1; only for an indexed list. */
    int indexOfKey(Object key) {
        checkArgument(keyOf != null, "the list is not indexed");
        for (int chunk = 0; chunk < chunks.length; chunk++) {
            Integer slot = chunks[chunk].index.get(key);
            if (slot != null) {
                int index = chunk * capacity + slot - head;
                // the slot may be one this list dropped, or one a list derived from it appended
                if (index >= 0 && index < size) {
                    return index;
                }
            }
        }
        return -1;
    }

    private static final class Chunk {
        private final Object[] items;
        /** Slots written; the list that moves it from {@code n} to {@code n + 1} owns slot {@code n}. */
        private final AtomicInteger claimed = new AtomicInteger();
        /** Key of an element to its slot, for an indexed list; concurrent since lists of one line share it. */
        private final ConcurrentHashMap<Object, Integer> index;

        private Chunk(int capacity, boolean indexed) {
            this.items = new Object[capacity];
            this.index = indexed ? new ConcurrentHashMap<>() : null;
        }

        @SuppressWarnings("unchecked")
        private <T> void write(int slot, T element, Function<? super T, ?> keyOf) {
            items[slot] = element;
            if (index != null) {
                index.put(keyOf.apply(element), slot);
            }
        }

        /** A new chunk holding this one's first {@code count} slots, with none claimed beyond them. */
        @SuppressWarnings("unchecked")
        private <T> Chunk copy(int count, Function<? super T, ?> keyOf) {
            Chunk copy = new Chunk(items.length, index != null);
            System.arraycopy(items, 0, copy.items, 0, count);
            if (index != null) {
                for (int slot = 0; slot < count; slot++) {
                    copy.index.put(keyOf.apply((T) items[slot]), slot);
                }
            }
            return copy;
        }
    }
}
