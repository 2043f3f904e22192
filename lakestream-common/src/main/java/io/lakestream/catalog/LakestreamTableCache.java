package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.CATALOG_ERROR;
import static io.lakestream.common.LakestreamError.TABLE_NOT_FOUND;
import static java.util.Objects.requireNonNull;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.util.concurrent.UncheckedExecutionException;
import io.lakestream.common.LakestreamException;
import io.lakestream.lake.LakePartitionDeletes;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.CommitMarkers;
import io.lakestream.log.FileStreamLog;
import io.lakestream.log.LogSnapshot;
import io.lakestream.log.PartitionDeleteMarker;
import io.lakestream.log.PinnedStreamLog;
import io.lakestream.log.StreamLog;
import io.lakestream.plan.ReadPin;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.TableDefinition;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loaded tables for a long-lived reader (an engine's connector), so that the steps of a query and
 * the queries after it do not parse the same Iceberg metadata and read the same log commits again.
 *
 * <p>Only immutable things are reused: an Iceberg metadata file (by its location: a new version is
 * a new file) and the log's commits (a shared log handle probes forward from the newest version it
 * has seen). The two pointers that move are read again on every {@link #current} and {@link
 * #pinCurrent}: the catalog's metadata location of the table (one catalog lookup; the metadata is
 * parsed only when it moved) and the log's newest commit. So a read sees every commit that returned
 * before it started. A dropped and re-created table is a new table (a new Iceberg table UUID), so
 * nothing of the old one is served for it.
 *
 * <p>A union read may instead pin a recently loaded lake ({@link #pinRecent}, within {@link LakeReuse}):
 * it reads the log's newest version as every read does, and the catalog not at all while the lake it has
 * is recent; a background refresh keeps the lake recent.
 *
 * <p>Thread-safe. Sizes are bounded; an evicted entry is simply loaded again.
 */
public final class LakestreamTableCache {
    private static final Logger logger = LoggerFactory.getLogger(LakestreamTableCache.class);

    private final LakestreamCatalog catalog;
    private final LakeReuse reuse;
    private final Clock clock;
    private final Executor refresher;
    private final Consumer<LakestreamTable> prepare;
    // per name: the current lake as last read from the catalog, and when it was read
    private final Cache<TableIdentifier, RecentLake> recentLakes;
    // per name: when it was last invalidated; a lake read from the catalog before then is not remembered
    private final Cache<TableIdentifier, Instant> invalidatedAt;
    private final Set<TableIdentifier> refreshing = ConcurrentHashMap.newKeySet();
    private final LongAdder catalogReads = new LongAdder();
    private final LongAdder backgroundCatalogReads = new LongAdder();
    // per name: an Iceberg table refreshed in place; a refresh re-parses the metadata only when it moved
    private final Cache<TableIdentifier, Table> liveTables;
    // a metadata file never changes; keyed by name too, so a renamed table reports its new name
    private final Cache<LakeKey, LakeVersion> lakes;
    // one shared log handle per table (UUID) and log location: it remembers the commits it read
    private final Cache<LogKey, FileStreamLog> logs;

    /** A cache whose every pin reads the catalog. */
    public LakestreamTableCache(LakestreamCatalog catalog, int maxTables) {
        this(catalog, maxTables, LakeReuse.NEVER, Clock.systemUTC(), Runnable::run, table -> {});
    }

    /**
     * @param reuse how long {@link #pinRecent} may pin a lake loaded earlier
     * @param clock the time of the staleness decisions
     * @param refresher runs background refreshes of lakes that {@link #pinRecent} found older than {@link
     *     LakeReuse#refreshAfter}
     * @param prepare called by a background refresh with the table at its new lake before reads may pin it
     *     (e.g. to plan the new snapshot's files), so that a read does not wait for it
     */
    public LakestreamTableCache(
            LakestreamCatalog catalog,
            int maxTables,
            LakeReuse reuse,
            Clock clock,
            Executor refresher,
            Consumer<LakestreamTable> prepare) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.reuse = requireNonNull(reuse, "reuse is null");
        this.clock = requireNonNull(clock, "clock is null");
        this.refresher = requireNonNull(refresher, "refresher is null");
        this.prepare = requireNonNull(prepare, "prepare is null");
        if (maxTables < 1) {
            throw new IllegalArgumentException("maxTables must be at least 1: " + maxTables);
        }
        this.liveTables = CacheBuilder.newBuilder().maximumSize(maxTables).build();
        // the current version of every table plus a few older ones that running queries pinned
        this.lakes = CacheBuilder.newBuilder().maximumSize(2L * maxTables).build();
        this.logs = CacheBuilder.newBuilder().maximumSize(maxTables).build();
        this.recentLakes = CacheBuilder.newBuilder().maximumSize(maxTables).build();
        this.invalidatedAt = CacheBuilder.newBuilder().maximumSize(maxTables).build();
    }

    /** How many times this cache asked the catalog for a table's current metadata (a lookup or a refresh). */
    public long catalogReads() {
        return catalogReads.sum();
    }

    /**
     * How many of {@link #catalogReads} the background lake refresh made: off every read's path, one per table and
     * refresh interval while reads go on, however many reads there are.
     */
    public long backgroundCatalogReads() {
        return backgroundCatalogReads.sum();
    }

    /** The table as it is now, with its log itself (writable), e.g. for a write. */
    public LakestreamTable current(TableIdentifier identifier) {
        LakeVersion lake = currentLake(identifier, false);
        return new LakestreamTable(identifier, lake.table(), lake.definition(), currentLog(lake));
    }

    /**
     * The table as it is now, pinned: the current lake metadata and the log's newest version. Should
     * another process tier and retention remove the tiered range between the two reads, the lake read
     * first is behind the log's start: the lake is read again (a few times), so the pin is one a union
     * read can serve.
     */
    public PinnedTable pinCurrent(TableIdentifier identifier) {
        // the lake first, then the log: tiering commits a lake snapshot only after the log holds what it
        // tiered, so the pinned lake never holds more of the log than the pinned log version
        Instant readAt = clock.instant();
        LakeVersion lake = currentLake(identifier, false);
        for (int attempt = 1; ; attempt++) {
            StreamLog log = currentLog(lake);
            LogSnapshot snapshot = log.latestSnapshot();
            if (attempt < ReadPin.MAX_PIN_ATTEMPTS
                    && ReadPin.lakeBehindLog(LakePosition.current(lake.table()), snapshot)) {
                LakeVersion newer = currentLake(identifier, false);
                if (!newer.metadataLocation().equals(lake.metadataLocation())) {
                    lake = newer;
                    continue;
                }
            }
            remember(identifier, new RecentLake(lake, readAt));
            long version = snapshot.version();
            return new PinnedTable(pinned(identifier, lake, log, version), lake.metadataLocation(), version);
        }
    }

    /**
     * The table pinned for a union read: the log's newest version, as {@link #pinCurrent}, with the lake as
     * the catalog had it at most {@link LakeReuse#maxStaleness} ago, read again from the catalog only when
     * it is older than that. A lake older than {@link LakeReuse#refreshAfter} is refreshed in the
     * background. Lake plus log tail is the table at the pinned log version whichever recent lake is
     * pinned (see {@link LakeReuse}); what changes is only how much of it comes from the log.
     *
     * <p>A table dropped, or dropped and re-created, since its lake was loaded is noticed on every call, by the
     * log's identity record or by a new commit that names the table ({@link
     * FileStreamLog#latestSnapshotIfOwned}): then the catalog is read, as by {@link #pinCurrent}.
     */
    public PinnedTable pinRecent(TableIdentifier identifier) {
        if (!reuse.enabled()) {
            return pinCurrent(identifier);
        }
        Instant now = clock.instant();
        RecentLake recent = recentLakes.getIfPresent(identifier);
        if (recent == null || !now.isBefore(recent.readAt().plus(reuse.maxStaleness()))) {
            return pinCurrent(identifier);
        }
        FileStreamLog log = log(recent.lake());
        Optional<LogSnapshot> owned = log.latestSnapshotIfOwned();
        if (owned.isEmpty()) {
            invalidate(identifier);
            return pinCurrent(identifier);
        }
        LogSnapshot newest = owned.get();
        if (behindLog(recent.lake(), newest)) {
            // retention removed changes this lake lacks (tiered since): pin the catalog's lake, which holds them
            return pinCurrent(identifier);
        }
        if (missesPartitionDelete(recent.lake(), newest)) {
            // a partition delete (a lake commit) marked in the log may have landed since this lake was read: the lake
            // would give its partitions' rows back, so pin the catalog's lake (docs/writes.md "Recent lakes")
            return pinCurrent(identifier);
        }
        if (!now.isBefore(recent.readAt().plus(reuse.refreshAfter()))) {
            refreshInBackground(identifier);
        }
        return new PinnedTable(
                pinned(identifier, recent.lake(), log, newest.version()),
                recent.lake().metadataLocation(),
                newest.version());
    }

    /**
     * Whether the log holds a partition delete's marker above the lake's log version whose delete the lake does not
     * hold (nor was it abandoned): the delete may have committed to the lake since, and a union read of this lake
     * would read the deleted partitions' rows. A marker at or below the lake's log version cannot be of a delete that
     * lands after the lake: a delete lands only onto a lake below its marker. A key window that no longer reaches
     * the lake's log version, or an unreadable lake position, counts as yes.
     */
    private static boolean missesPartitionDelete(LakeVersion lake, LogSnapshot log) {
        try {
            Table table = lake.table();
            long lakeLogVersion = LakePosition.current(table).logVersion();
            Optional<List<PartitionDeleteMarker>> covered =
                    CommitMarkers.partitionDeletesIfCovered(log, lakeLogVersion);
            if (covered.isEmpty()) {
                return true;
            }
            List<PartitionDeleteMarker> markers = covered.get();
            if (markers.isEmpty()) {
                return false;
            }
            Snapshot current = table.currentSnapshot();
            return current == null
                    || !LakePartitionDeletes.notHeld(table, current.snapshotId(), markers)
                            .isEmpty();
        } catch (LakestreamException e) {
            return true;
        }
    }

    /** Whether the log no longer holds some change the lake lacks (an unreadable lake position counts as yes). */
    private static boolean behindLog(LakeVersion lake, LogSnapshot log) {
        try {
            return ReadPin.lakeBehindLog(LakePosition.current(lake.table()), log);
        } catch (LakestreamException e) {
            // the catalog's lake is read, and the read reports it as before
            return true;
        }
    }

    /**
     * Forgets the lake a name had (e.g. after a drop or create through the same engine): the next {@link
     * #pinRecent} reads the catalog.
     */
    public void invalidate(TableIdentifier identifier) {
        invalidatedAt.put(identifier, clock.instant());
        recentLakes.invalidate(identifier);
    }

    private void remember(TableIdentifier identifier, RecentLake lake) {
        Instant invalidated = invalidatedAt.getIfPresent(identifier);
        if (invalidated != null && lake.readAt().isBefore(invalidated)) {
            // a background refresh that read the catalog before a DDL through this engine finished after it: the
            // next read would pin the lake from before the DDL (e.g. a dropped column's schema) until it is stale
            return;
        }
        // a slower refresh that read the catalog earlier does not replace what a later read found
        recentLakes
                .asMap()
                .merge(
                        identifier,
                        lake,
                        (old, candidate) -> candidate.readAt().isBefore(old.readAt()) ? old : candidate);
    }

    /** Reads the catalog and prepares the new lake off the read path; one refresh per table at a time. */
    private void refreshInBackground(TableIdentifier identifier) {
        if (!refreshing.add(identifier)) {
            return;
        }
        try {
            refresher.execute(() -> {
                try {
                    Instant readAt = clock.instant();
                    LakeVersion lake = currentLake(identifier, true);
                    prepare.accept(new LakestreamTable(identifier, lake.table(), lake.definition(), log(lake)));
                    remember(identifier, new RecentLake(lake, readAt));
                } catch (RuntimeException e) {
                    // the recent lake stays until it is too old: then a read loads the table itself and reports why
                    logger.debug("Background refresh of table {} failed", identifier, e);
                } finally {
                    refreshing.remove(identifier);
                }
            });
        } catch (RejectedExecutionException e) {
            // shutting down
            refreshing.remove(identifier);
        }
    }

    /** The table as a query pinned it ({@link #pinCurrent}); a clear error if its metadata is gone. */
    public LakestreamTable pinned(TableIdentifier identifier, String lakeMetadataLocation, long logVersion) {
        LakeVersion lake = lakeAt(identifier, lakeMetadataLocation);
        return pinned(identifier, lake, log(lake), logVersion);
    }

    private static LakestreamTable pinned(TableIdentifier identifier, LakeVersion lake, StreamLog log, long version) {
        return new LakestreamTable(identifier, lake.table(), lake.definition(), new PinnedStreamLog(log, version));
    }

    /** @param background whether the background refresh asks (counted apart) */
    private LakeVersion currentLake(TableIdentifier identifier, boolean background) {
        Table live = liveTables.getIfPresent(identifier);
        if (live != null) {
            try {
                TableMetadata metadata;
                // a refresh updates the operations' state: one at a time
                synchronized (live) {
                    countCatalogRead(background);
                    metadata = ((HasTableOperations) live).operations().refresh();
                }
                if (metadata != null) {
                    return lake(identifier, metadata, live.io());
                }
            } catch (RuntimeException e) {
                // dropped, or dropped and re-created (Iceberg refuses to refresh into another table): load anew
            }
            liveTables.invalidate(identifier);
        }
        Table loaded = loadLive(identifier, background);
        return lake(identifier, ((HasTableOperations) loaded).operations().current(), loaded.io());
    }

    /** The table as the catalog has it now (one catalog lookup), kept as the live table of its name. */
    private Table loadLive(TableIdentifier identifier, boolean background) {
        Table loaded = loadLake(identifier, background);
        if (!(loaded instanceof HasTableOperations)) {
            throw new LakestreamException(
                    CATALOG_ERROR,
                    "Table %s is a %s, which has no table operations; Lakestream needs a metadata-file-based Iceberg table"
                            .formatted(identifier, loaded.getClass().getSimpleName()));
        }
        liveTables.put(identifier, loaded);
        return loaded;
    }

    private Table loadLake(TableIdentifier identifier, boolean background) {
        countCatalogRead(background);
        return catalog.loadLake(identifier);
    }

    private void countCatalogRead(boolean background) {
        catalogReads.increment();
        if (background) {
            backgroundCatalogReads.increment();
        }
    }

    private LakeVersion lakeAt(TableIdentifier identifier, String metadataLocation) {
        try {
            // the first splits of a new version reach a worker at once (one per bucket): one of them loads it, the
            // others wait for that load instead of each asking the catalog and parsing the metadata again
            return lakes.get(new LakeKey(identifier, metadataLocation), () -> loadLakeAt(identifier, metadataLocation));
        } catch (ExecutionException | UncheckedExecutionException e) {
            if (e.getCause() instanceof RuntimeException cause) {
                throw cause;
            }
            throw new LakestreamException(
                    CATALOG_ERROR,
                    "Cannot load version %s of table %s: %s".formatted(metadataLocation, identifier, e.getMessage()),
                    e);
        }
    }

    /** A version another step or node pinned (e.g. on a worker): its metadata file, read with the table's file IO. */
    private LakeVersion loadLakeAt(TableIdentifier identifier, String metadataLocation) {
        Table live = liveTables.getIfPresent(identifier);
        if (live == null) {
            // the first version of the table this cache sees: one catalog lookup for its file IO, kept for the
            // versions that follow; usually the pinned version is the current one, already parsed
            live = loadLive(identifier, false);
            TableMetadata current = ((HasTableOperations) live).operations().current();
            if (metadataLocation.equals(current.metadataFileLocation())) {
                return newLakeVersion(identifier, current, live.io());
            }
        }
        FileIO io = live.io();
        TableMetadata metadata;
        try {
            metadata = TableMetadataParser.read(io, metadataLocation);
        } catch (NotFoundException e) {
            throw new LakestreamException(
                    TABLE_NOT_FOUND,
                    "Table %s was dropped or its metadata expired while it was read: %s is gone"
                            .formatted(identifier, metadataLocation),
                    e);
        } catch (RuntimeException e) {
            throw new LakestreamException(
                    CATALOG_ERROR,
                    "Cannot read the lake metadata file %s of table %s: %s"
                            .formatted(metadataLocation, identifier, e.getMessage()),
                    e);
        }
        return newLakeVersion(identifier, metadata, io);
    }

    private LakeVersion lake(TableIdentifier identifier, TableMetadata metadata, FileIO io) {
        return lakes.asMap()
                .computeIfAbsent(
                        new LakeKey(identifier, metadataLocation(identifier, metadata)),
                        key -> newLakeVersion(identifier, metadata, io));
    }

    private LakeVersion newLakeVersion(TableIdentifier identifier, TableMetadata metadata, FileIO io) {
        Table table = new BaseTable(
                new StaticTableOperations(metadata, io),
                CatalogUtil.fullTableName(catalog.icebergCatalog().name(), identifier));
        return new LakeVersion(
                metadataLocation(identifier, metadata),
                table,
                TableDefinition.fromIceberg(identifier.toString(), table));
    }

    private static String metadataLocation(TableIdentifier identifier, TableMetadata metadata) {
        String location = metadata.metadataFileLocation();
        if (location == null) {
            throw new LakestreamException(
                    CATALOG_ERROR,
                    "The catalog returned table %s without a metadata file location; Lakestream reads pin one"
                            .formatted(identifier));
        }
        return location;
    }

    /** The log of the table the catalog has now: one created before logs had an identity record gets one. */
    private StreamLog currentLog(LakeVersion lake) {
        FileStreamLog log = log(lake);
        log.adoptIdentity();
        return log;
    }

    private FileStreamLog log(LakeVersion lake) {
        LogKey key = new LogKey(
                lake.table().uuid(),
                LakestreamCatalog.logLocation(lake.table()),
                lake.definition().bucketCount());
        return logs.asMap().computeIfAbsent(key, ignored -> catalog.openLog(lake.table(), lake.definition()));
    }

    private record LakeKey(TableIdentifier identifier, String metadataLocation) {}

    /** One version of a lake: a read-only Iceberg table over one metadata file, and its definition. */
    private record LakeVersion(String metadataLocation, Table table, TableDefinition definition) {}

    private record LogKey(UUID tableUuid, String logLocation, int bucketCount) {}

    /** The current lake of a name as the catalog had it at {@code readAt}. */
    private record RecentLake(LakeVersion lake, Instant readAt) {}
}
