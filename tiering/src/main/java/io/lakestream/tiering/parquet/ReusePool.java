package io.lakestream.tiering.parquet;

import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Objects the writer threads of one round hand on to each other instead of allocating them per task or
 * file (builders, scratch buffers, hash tables). Thread-safe; it holds at most as many objects as were in
 * use at once. An object is given back only once its user is done with it, never after a failure (its
 * state is then unknown: it is left to the garbage collector).
 */
public final class ReusePool<T> {
    private final Queue<T> free = new ConcurrentLinkedQueue<>();

    /** A free object that {@code fits}, or else a new one; a free object that does not fit is dropped. */
    public T take(Predicate<? super T> fits, Supplier<? extends T> create) {
        T object = free.poll();
        return object != null && fits.test(object) ? object : create.get();
    }

    public void give(T object) {
        free.offer(object);
    }
}
