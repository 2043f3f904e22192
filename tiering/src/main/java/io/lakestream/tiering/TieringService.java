package io.lakestream.tiering;

import static io.lakestream.common.LakestreamError.LAKE_AHEAD_OF_LOG;
import static io.lakestream.common.LakestreamError.LAKE_LAYOUT_MISMATCH;
import static io.lakestream.common.LakestreamError.LAKE_OFFSETS_INVALID;
import static io.lakestream.common.LakestreamError.LOG_CORRUPT;
import static io.lakestream.common.LakestreamError.LOG_RANGE_REMOVED;
import static io.lakestream.common.LakestreamError.NOT_A_LAKESTREAM_TABLE;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded tiering service: one JVM, a scheduled loop over every Lakestream table of a catalog
 * ({@link #start}), or one pass on demand ({@link #runOnce}, {@link #tierTable}).
 *
 * <p>Each table is independent: a table in a bad state (lake ahead of the log, untiered log removed,
 * lake changed outside Lakestream) stops at once with its error; other failures are retried with
 * exponential back-off and stop the table after {@link TieringConfig#maxConsecutiveFailures} in a
 * row, so nothing retries forever. {@link #resume} restarts a stopped table after the operator fixed
 * it. Other tables keep tiering throughout.
 */
public final class TieringService implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(TieringService.class);

    /** Errors that a retry cannot fix: they need an operator. */
    private static final Set<LakestreamError> BAD_STATES =
            Set.of(LAKE_AHEAD_OF_LOG, LOG_RANGE_REMOVED, LAKE_LAYOUT_MISMATCH, LAKE_OFFSETS_INVALID, LOG_CORRUPT);

    private final LakestreamCatalog catalog;
    private final TieringConfig config;
    private final Clock clock;
    private final BufferAllocator allocator;
    private final ExecutorService writers;
    private final TableTiering tiering;
    private final LoadedTables loadedTables;
    private final Map<TableIdentifier, TableTieringStatus> statuses = new ConcurrentHashMap<>();
    private ScheduledExecutorService scheduler;

    public TieringService(LakestreamCatalog catalog, TieringConfig config) {
        this(catalog, config, TieringHooks.NONE, Clock.systemUTC());
    }

    public TieringService(LakestreamCatalog catalog, TieringConfig config, TieringHooks hooks, Clock clock) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.config = requireNonNull(config, "config is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.allocator = new RootAllocator();
        this.writers = Executors.newFixedThreadPool(
                config.writerThreads(),
                Thread.ofPlatform()
                        .name("lakestream-tiering-writer-", 0)
                        .daemon(true)
                        .factory());
        this.tiering = new TableTiering(config, allocator, writers, requireNonNull(hooks, "hooks is null"), clock);
        this.loadedTables = new LoadedTables(catalog);
    }

    /** Starts the scheduled loop: a pass over all tables, then {@link TieringConfig#interval} pause, repeated. */
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        scheduler = Executors.newSingleThreadScheduledExecutor(
                Thread.ofPlatform().name("lakestream-tiering").daemon(true).factory());
        scheduler.scheduleWithFixedDelay(
                () -> {
                    try {
                        runOnce();
                    } catch (RuntimeException e) {
                        // Listing tables failed (catalog down): the next pass tries again.
                        log.warn("Tiering pass failed", e);
                    }
                },
                0,
                config.interval().toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** One pass over every Lakestream table of every namespace. */
    public synchronized List<TieringResult> runOnce() {
        List<TieringResult> results = new ArrayList<>();
        for (TableIdentifier table : listTables()) {
            results.add(tierTable(table));
        }
        return results;
    }

    /** One round for one table, honouring its stopped state and back-off. */
    public synchronized TieringResult tierTable(TableIdentifier identifier) {
        TableTieringStatus status = statuses.getOrDefault(identifier, TableTieringStatus.ACTIVE);
        long now = clock.millis();
        if (status.stopped()) {
            return TieringResult.failure(
                    identifier,
                    TieringResult.Outcome.STOPPED,
                    status.lastError().orElse("stopped"));
        }
        if (now < status.retryAfterMillis()) {
            return TieringResult.failure(
                    identifier,
                    TieringResult.Outcome.BACKING_OFF,
                    status.lastError().orElse("backing off"));
        }
        try {
            LakestreamTable table = loadedTables.load(identifier);
            // load() read the table from the catalog just now (to check the one held, or to load it)
            TieringResult result = tiering.tier(table, true);
            statuses.put(identifier, TableTieringStatus.ACTIVE.withResult(result));
            return result;
        } catch (LakestreamException e) {
            return recordFailure(identifier, status, e, BAD_STATES.contains(e.error()));
        } catch (RuntimeException e) {
            return recordFailure(identifier, status, e, false);
        }
    }

    private TieringResult recordFailure(
            TableIdentifier identifier, TableTieringStatus status, RuntimeException e, boolean badState) {
        loadedTables.forget(identifier); // whatever failed, the next round starts from a fresh load
        if (e instanceof LakestreamException lakestream
                && (lakestream.error() == TABLE_NOT_FOUND || lakestream.error() == NOT_A_LAKESTREAM_TABLE)) {
            // gone, or replaced by a plain Iceberg table since the last round: nothing to tier, nothing to keep
            statuses.remove(identifier);
            return TieringResult.failure(identifier, TieringResult.Outcome.FAILED, e.getMessage());
        }
        int failures = status.consecutiveFailures() + 1;
        boolean stop = badState || failures >= config.maxConsecutiveFailures();
        String message = e.getMessage();
        if (stop) {
            log.error(
                    "Tiering of {} stopped{}: {}. Fix the cause, then resume the table",
                    identifier,
                    badState ? "" : " after %s consecutive failures".formatted(failures),
                    message,
                    e);
            statuses.put(
                    identifier, new TableTieringStatus(true, failures, 0, Optional.of(message), status.lastResult()));
            return TieringResult.failure(identifier, TieringResult.Outcome.STOPPED, message);
        }
        long backOff = Math.min(
                config.interval().toMillis() * (1L << Math.min(failures - 1, 10)), TimeUnit.MINUTES.toMillis(30));
        log.warn(
                "Tiering of {} failed ({} of {} allowed failures), retrying in {} ms",
                identifier,
                failures,
                config.maxConsecutiveFailures(),
                backOff,
                e);
        statuses.put(
                identifier,
                new TableTieringStatus(
                        false, failures, clock.millis() + backOff, Optional.of(message), status.lastResult()));
        return TieringResult.failure(identifier, TieringResult.Outcome.FAILED, message);
    }

    /** Restarts tiering of a stopped or backing-off table. */
    public synchronized void resume(TableIdentifier identifier) {
        statuses.remove(identifier);
    }

    public Map<TableIdentifier, TableTieringStatus> status() {
        return Map.copyOf(statuses);
    }

    private List<TableIdentifier> listTables() {
        List<TableIdentifier> tables = new ArrayList<>();
        for (Namespace namespace : catalog.listNamespaces()) {
            // a table the last round tiered is not loaded again only to be told apart from a plain Iceberg table:
            // that load parsed the whole metadata file every round; the round's own load checks the table anyway
            tables.addAll(catalog.listTables(namespace, loadedTables::holds));
        }
        return tables;
    }

    @Override
    public synchronized void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            awaitQuietly(scheduler);
        }
        writers.shutdownNow();
        awaitQuietly(writers);
        allocator.close();
    }

    private static void awaitQuietly(ExecutorService executor) {
        try {
            executor.awaitTermination(1, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
