package io.lakestream.log;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

/**
 * A partition that partition expiry removed from a partitioned log: the log state keeps its id and path for a while
 * (a bounded window, {@link LogSnapshot#RETAINED_EXPIRED_PARTITIONS}), so that the lake commit completing the expiry
 * knows which lake partition the offset-map keys {@code "<id>/<bucket>"} it drops belong to, also after a crash
 * between the two commits.
 *
 * @param id the partition's id, never used again
 * @param path the partition's path (the lake's partition path of its user fields)
 */
public record ExpiredPartition(int id, String path) {
    public ExpiredPartition {
        checkArgument(id >= 0, "id is negative");
        requireNonNull(path, "path is null");
    }
}
