package io.lakestream.merge;

import static com.google.common.base.Preconditions.checkArgument;

/**
 * Limits of the merge.
 *
 * @param maxIndexRows most log changes indexed at once. A longer log tail is merged in several
 *     passes, each over the keys of one hash partition (the lake files and the log are read once per
 *     pass), so memory stays bounded instead of running out on a big tail.
 */
public record MergeConfig(long maxIndexRows) {
    public static final MergeConfig DEFAULT = new MergeConfig(4_000_000);

    public MergeConfig {
        checkArgument(maxIndexRows >= 1, "maxIndexRows must be at least 1");
    }

    int passesFor(long logRows) {
        return (int) Math.max(1, (logRows + maxIndexRows - 1) / maxIndexRows);
    }
}
