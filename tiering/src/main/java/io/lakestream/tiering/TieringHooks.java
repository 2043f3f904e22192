package io.lakestream.tiering;

import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Called at each {@link TieringStep} of a round. Tests inject faults by throwing; production uses
 * {@link #NONE}. A hook runs on the thread doing the step (bucket writes run in parallel).
 */
@FunctionalInterface
public interface TieringHooks {
    TieringHooks NONE = (table, step, bucket) -> {};

    /**
     * @param bucket the bucket for per-bucket steps, -1 for table-level steps
     */
    void reached(TableIdentifier table, TieringStep step, int bucket);
}
