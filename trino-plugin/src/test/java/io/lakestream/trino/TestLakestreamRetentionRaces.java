package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.inject.Scopes;
import io.airlift.bootstrap.Bootstrap;
import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.catalog.LocalFileIO;
import io.lakestream.lake.LakePosition;
import io.lakestream.log.FaultyLogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.trino.Session;
import io.trino.filesystem.TrinoFileSystem;
import io.trino.filesystem.local.LocalFileSystem;
import io.trino.spi.NodeManager;
import io.trino.spi.Plugin;
import io.trino.spi.connector.Connector;
import io.trino.spi.connector.ConnectorContext;
import io.trino.spi.connector.ConnectorFactory;
import io.trino.testing.QueryRunner;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Retention racing Trino reads (issue 18). Retention removes only log ranges the lake already holds, so
 * a read never fails because of it with a wrong diagnosis:
 *
 * <ul>
 *   <li>a query that pinned a log version whose segment retention removed before the query's split opened
 *       it fails with {@code LOG_RANGE_REMOVED} saying to re-run (not {@code LOG_CORRUPT}); the segment is
 *       opened through Trino's file system, whose missing file is a {@code FileNotFoundException};
 *   <li>a pin whose lake was read before another process tiered and retention removed the range, and whose
 *       log was read after, reads the lake again: every row, not "removed before tiering".
 * </ul>
 *
 * The races are deterministic: {@link RaceFunctions} runs the other process's work after the query read its
 * first rows, and a second catalog, {@code hooked}, is the connector's parts over the same warehouse with
 * its log on a {@link FaultyLogFileSystem} that runs that work right before the log's next read.
 */
final class TestLakestreamRetentionRaces extends AbstractLakestreamSqlTest {
    private static final String HOOKED = "hooked";

    private final FaultyLogFileSystem hookedLog = new FaultyLogFileSystem();
    private LakestreamCatalog hookedCatalog;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        QueryRunner runner = super.createQueryRunner();
        runner.installPlugin(new Plugin() {
            @Override
            public Set<Class<?>> getFunctions() {
                return Set.of(RaceFunctions.class);
            }
        });
        hookedCatalog = LakestreamCatalog.open(
                CatalogConfig.embedded(warehouse),
                properties -> {
                    LocalFileIO io = new LocalFileIO();
                    io.initialize(properties);
                    return io;
                },
                location -> hookedLog);
        LakestreamCatalogAccess access = new LakestreamCatalogAccess(hookedCatalog);
        runner.installPlugin(new Plugin() {
            @Override
            public Iterable<ConnectorFactory> getConnectorFactories() {
                return List.of(new HookedConnectorFactory(access));
            }
        });
        runner.createCatalog(HOOKED, HookedConnectorFactory.NAME, Map.of());
        return runner;
    }

    @AfterAll
    void closeHookedCatalog() throws Exception {
        hookedCatalog.close();
    }

    /**
     * The soak's Trino failure, reduced: the query pinned a log version, retention removed a segment of it
     * (after tiering put it in the lake), then the query's split opened that segment.
     */
    @Test
    void segmentRemovedAfterThePinSaysToRerun() {
        assertUpdate("CREATE TABLE events (id bigint, v varchar) WITH (bucket_count = 1)");
        assertUpdate("INSERT INTO events VALUES (1, 'a'), (2, 'b')", 2);
        assertUpdate("INSERT INTO events VALUES (3, 'c')", 1);
        assertThat(tables.load("events").log().latestSnapshot().bucket(0).segments())
                .as("two segments: the split reads the second after the first one's rows reached race()")
                .hasSize(2);

        RaceFunctions.arm(() -> tierAndRetain("events"));
        assertQueryFails(
                "SELECT race(id), v FROM events",
                ".*LOG_RANGE_REMOVED.*were removed by retention while this read ran.*Re-run the query.*");
        assertThat(RaceFunctions.fired()).isTrue();
        // the re-run pins the lake that holds them
        assertQuery("SELECT id, v FROM events", "VALUES (1, 'a'), (2, 'b'), (3, 'c')");
    }

    /**
     * Every Trino read path that opens log segments, on a pinned version whose tail segments retention removed
     * (a time-travel read stands for a query pinned before retention ran): the Parquet merge (the tail's keys
     * and winners), the union split reader, and the changelog.
     */
    @Test
    void everyReadPathOfARemovedSegmentSaysToRerun() {
        assertUpdate("CREATE TABLE keyed (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 1)");
        assertUpdate("INSERT INTO keyed VALUES (1, 'a'), (2, 'b')", 2);
        tables.tier("keyed");
        assertUpdate("INSERT INTO keyed VALUES (1, 'a2'), (3, 'c')", 2);
        long pinned = tables.load("keyed").log().latestSnapshot().version();
        assertUpdate("INSERT INTO keyed VALUES (4, 'd')", 1);
        tierAndRetain("keyed");

        String rerun = ".*LOG_RANGE_REMOVED.*were removed by retention while this read ran.*Re-run the query.*";
        assertQueryFails("SELECT id, v FROM keyed FOR VERSION AS OF " + pinned, rerun);
        assertQueryFails(
                Session.builder(getSession())
                        .setCatalogSessionProperty(
                                LakestreamQueryRunner.CATALOG,
                                LakestreamSessionProperties.NATIVE_PARQUET_READER_ENABLED,
                                "false")
                        .build(),
                "SELECT id, v FROM keyed FOR VERSION AS OF " + pinned,
                rerun);
        assertQueryFails("SELECT id, v FROM \"keyed$changes\" FOR VERSION AS OF " + pinned, rerun);
        assertQuery("SELECT id, v FROM keyed", "VALUES (1, 'a2'), (2, 'b'), (3, 'c'), (4, 'd')");
    }

    /**
     * The connector pins a query's table in its table cache: the lake, then the log. Tiering and retention by
     * another process in between leave the lake behind the log's start; the pin reads the lake again.
     */
    @Test
    void pinWhoseLakeWasReadBeforeTieringAndRetentionReadsEveryRow() {
        assertUpdate("CREATE TABLE counters (id bigint, n bigint) WITH (primary_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate("INSERT INTO counters VALUES (1, 0), (2, 0), (3, 0)", 3);
        tables.tier("counters");
        assertUpdate("UPDATE counters SET n = n + 1 WHERE id IN (1, 2)", 2);
        assertUpdate("DELETE FROM counters WHERE id = 3", 1);
        assertUpdate("INSERT INTO counters VALUES (4, 7)", 1);
        // the hooked connector has the table in its cache (lake and log handle), as a running Trino would
        assertQuery("SELECT count(*) FROM hooked.tests.counters", "VALUES 3");

        AtomicBoolean ran = new AtomicBoolean();
        hookedLog.beforeNextRead(() -> {
            tierAndRetain("counters");
            ran.set(true);
        });
        assertQuery("SELECT id, n FROM hooked.tests.counters", "VALUES (1, 1), (2, 1), (4, 7)");
        assertThat(ran).isTrue();
        assertQuery("SELECT sum(records_behind) FROM hooked.tests.\"counters$offsets\"", "VALUES 0");
    }

    /** What the tiering service does: tier, then remove every log segment the lake holds. */
    private void tierAndRetain(String name) {
        tables.tier(name);
        LakestreamTable table = tables.load(name);
        assertThat(table.log().removeSegments(LakePosition.current(table.lake()).offsets(), Long.MAX_VALUE))
                .isPositive();
    }

    /**
     * The Lakestream connector's parts as {@link LakestreamModule} binds them, over a given catalog access and
     * Trino's local file system (what the real catalog's defaults enable).
     */
    private record HookedConnectorFactory(LakestreamCatalogAccess access) implements ConnectorFactory {
        static final String NAME = "lakestream_hooked";

        @Override
        public String getName() {
            return NAME;
        }

        @Override
        public Connector create(String catalogName, Map<String, String> config, ConnectorContext context) {
            Bootstrap app = new Bootstrap("io.trino.bootstrap.catalog." + catalogName, binder -> {
                binder.bind(LakestreamCatalogAccess.class).toInstance(access);
                LocalFileSystem fileSystem = new LocalFileSystem(Path.of("/"));
                binder.bind(TrinoFileSystem.class).toInstance(fileSystem);
                binder.bind(LakestreamLogFileSystem.class)
                        .toInstance(new LakestreamLogFileSystem(fileSystem, Optional.of(Path.of("/"))));
                binder.bind(BufferAllocator.class).toInstance(new RootAllocator());
                binder.bind(LakestreamConfig.class).toInstance(new LakestreamConfig());
                binder.bind(LakestreamMetadata.class).in(Scopes.SINGLETON);
                binder.bind(LakestreamWrites.class).in(Scopes.SINGLETON);
                binder.bind(LakestreamSplitManager.class).in(Scopes.SINGLETON);
                binder.bind(LakeKeyCache.class).in(Scopes.SINGLETON);
                binder.bind(LakestreamPageSourceProvider.class).in(Scopes.SINGLETON);
                binder.bind(LakestreamPageSinkProvider.class).in(Scopes.SINGLETON);
                binder.bind(NodeManager.class).toInstance(context.getNodeManager());
                binder.bind(LakestreamNodePartitioningProvider.class).in(Scopes.SINGLETON);
                binder.bind(LakestreamConnector.class).in(Scopes.SINGLETON);
            });
            return app.doNotInitializeLogging().initialize().getInstance(LakestreamConnector.class);
        }
    }
}
