package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.TIERING_FAILED;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePosition;
import io.lakestream.table.LakestreamTable;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotUpdate;
import org.apache.iceberg.Table;
import org.apache.iceberg.exceptions.CommitStateUnknownException;
import org.apache.iceberg.exceptions.ValidationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Commits the files of a {@link TieringPlan} as one lake snapshot carrying the new offset map,
 * exactly once: the commit succeeds only if the lake's offsets are still the planned base
 * ({@link OffsetsUnchanged}). Cleans up the round's files when the commit certainly did not happen,
 * and keeps them when it might have (an unknown commit state, or a failure after the swap).
 */
final class LakeCommitter {
    private static final Logger log = LoggerFactory.getLogger(LakeCommitter.class);

    /** Snapshot summary key: unique id of the tiering commit, to find out whether a failed commit landed. */
    static final String SUMMARY_COMMIT_ID = "lakestream.tiering-commit-id";

    private final TieringHooks hooks;

    LakeCommitter(TieringHooks hooks) {
        this.hooks = requireNonNull(hooks, "hooks is null");
    }

    enum Outcome {
        COMMITTED,
        CONFLICT
    }

    record Result(Outcome outcome, OptionalLong snapshotId) {}

    Result commit(LakestreamTable table, TieringPlan plan, List<BucketFiles> files) {
        Table lake = table.lake();
        requireOneResultPerTask(table, plan, files);
        String commitId = UUID.randomUUID().toString();
        OffsetsUnchanged validator = new OffsetsUnchanged(
                plan.base().offsets(),
                table.definition().bucketCount(),
                () -> hooks.reached(table.identifier(), TieringStep.COMMITTING, -1));
        SnapshotUpdate<?> update;
        if (table.definition().hasPrimaryKey()) {
            RowDelta delta = lake.newRowDelta();
            files.forEach(bucket -> {
                bucket.dataFiles().forEach(delta::addRows);
                bucket.deleteFiles().forEach(delta::addDeletes);
            });
            update = delta;
        } else {
            AppendFiles append = lake.newAppend();
            files.forEach(bucket -> bucket.dataFiles().forEach(append::appendFile));
            update = append;
        }
        Map<String, String> summary =
                LakePosition.summary(plan.newOffsets(), plan.log().version());
        summary.forEach(update::set);
        update.set(SUMMARY_COMMIT_ID, commitId);
        update.validateWith(validator);
        CommitOnCallingThread.configure(update);

        try {
            update.commit();
        } catch (ValidationException e) {
            if (validator.conflicting().isPresent()) {
                deleteFiles(lake, files);
                return new Result(Outcome.CONFLICT, OptionalLong.empty());
            }
            throw failed(table, files, commitId, e);
        } catch (CommitStateUnknownException e) {
            // The commit may have landed: the files must stay. The next round re-plans from the lake, so
            // nothing is tiered twice; if the commit did not land, the files are orphans.
            throw new LakestreamException(
                    TIERING_FAILED,
                    "The lake commit of table %s has an unknown outcome (%s); its files were kept. The next round re-reads the lake offsets"
                            .formatted(table, e.getMessage()),
                    e);
        } catch (RuntimeException e) {
            throw failed(table, files, commitId, e);
        }
        // no lake.refresh() here: Iceberg's commit re-read the table itself to find the snapshot it saved (and a
        // commit that could not re-read it leaves the table to re-read at its next use), so the table already shows
        // the commit; a refresh of our own was one more catalog read per round, under the catalog's lock
        return new Result(Outcome.COMMITTED, findCommit(lake, commitId, plan));
    }

    /**
     * The files must be those of exactly the plan's tasks, each once: a runner that lost a result (or
     * returned a task twice, or a task of another plan) would otherwise commit new offsets over a range it
     * did not write, or write a range twice. Nothing is committed then, and the files are deleted.
     */
    private static void requireOneResultPerTask(LakestreamTable table, TieringPlan plan, List<BucketFiles> files) {
        List<BucketTask> written = files.stream().map(BucketFiles::task).toList();
        if (written.size() != plan.tasks().size() || !Set.copyOf(written).equals(Set.copyOf(plan.tasks()))) {
            deleteFiles(table.lake(), files);
            throw new LakestreamException(
                    TIERING_FAILED,
                    "Tiering of table %s got results for tasks %s but planned %s; nothing was committed and the next round re-plans"
                            .formatted(table, written, plan.tasks()));
        }
    }

    private RuntimeException failed(
            LakestreamTable table, List<BucketFiles> files, String commitId, RuntimeException e) {
        Table lake = table.lake();
        boolean landed;
        try {
            lake.refresh();
            landed = findCommitAnywhere(lake, commitId);
        } catch (RuntimeException refreshFailure) {
            e.addSuppressed(refreshFailure);
            return new LakestreamException(
                    TIERING_FAILED,
                    "The lake commit of table %s failed and whether it landed cannot be checked; its files were kept: %s"
                            .formatted(table, e.getMessage()),
                    e);
        }
        if (!landed) {
            deleteFiles(lake, files);
        }
        return new LakestreamException(
                TIERING_FAILED,
                "The lake commit of table %s failed (%s)%s"
                        .formatted(
                                table,
                                e.getMessage(),
                                landed
                                        ? " after it was published; the next round continues from it"
                                        : "; nothing was committed"),
                e);
    }

    private static OptionalLong findCommit(Table lake, String commitId, TieringPlan plan) {
        for (Snapshot snapshot = lake.currentSnapshot();
                snapshot != null;
                snapshot = snapshot.parentId() == null ? null : lake.snapshot(snapshot.parentId())) {
            if (commitId.equals(snapshot.summary().get(SUMMARY_COMMIT_ID))) {
                return OptionalLong.of(snapshot.snapshotId());
            }
            if (plan.base().snapshotId().isPresent()
                    && snapshot.snapshotId() == plan.base().snapshotId().getAsLong()) {
                break;
            }
        }
        return OptionalLong.empty();
    }

    private static boolean findCommitAnywhere(Table lake, String commitId) {
        for (Snapshot snapshot : lake.snapshots()) {
            if (commitId.equals(snapshot.summary().get(SUMMARY_COMMIT_ID))) {
                return true;
            }
        }
        return false;
    }

    static void deleteFiles(Table lake, List<BucketFiles> files) {
        for (BucketFiles bucket : files) {
            for (String location : bucket.locations()) {
                try {
                    lake.io().deleteFile(location);
                } catch (RuntimeException e) {
                    log.warn("Could not delete uncommitted lake file {}; it is an orphan", location, e);
                }
            }
        }
    }
}
