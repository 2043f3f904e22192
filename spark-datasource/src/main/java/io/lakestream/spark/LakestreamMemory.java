package io.lakestream.spark;

import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;

/** The Arrow memory of this JVM's Lakestream readers and writers: one root, a child per task. */
final class LakestreamMemory {
    private static final BufferAllocator ROOT = new RootAllocator();

    private LakestreamMemory() {}

    static BufferAllocator newTaskAllocator(String name) {
        return ROOT.newChildAllocator(name, 0, Long.MAX_VALUE);
    }
}
