package io.lakestream.trino;

import static io.lakestream.trino.LakestreamQueryRunner.SCHEMA;
import static java.util.Objects.requireNonNull;
import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.CatalogConfig;
import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.table.LakestreamTable;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import io.lakestream.tiering.TieringResult;
import java.nio.file.Path;
import java.time.Clock;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.iceberg.catalog.TableIdentifier;

/** Direct access to the tables of a test runner's warehouse: loading them and running real tiering. */
final class LakestreamTestTables implements AutoCloseable {
    private final LakestreamCatalog catalog;
    private final BufferAllocator allocator = new RootAllocator();
    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);

    LakestreamTestTables(Path warehouse) {
        this(LakestreamCatalog.open(CatalogConfig.embedded(requireNonNull(warehouse, "warehouse is null"))));
    }

    LakestreamTestTables(LakestreamCatalog catalog) {
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    LakestreamTable load(String table) {
        return catalog.loadTable(TableIdentifier.of(SCHEMA, table));
    }

    /** The warehouse's catalog, for changing tables outside the runner's connector. */
    LakestreamCatalog catalog() {
        return catalog;
    }

    /** The same catalog as the runner's connector uses, for calling the connector's classes directly. */
    LakestreamCatalogAccess catalogAccess() {
        return new LakestreamCatalogAccess(catalog);
    }

    BufferAllocator allocator() {
        return allocator;
    }

    /** Tiers the log of the table into the lake, as the tiering service does. */
    void tier(String table) {
        TieringResult result = new TableTiering(
                        TieringConfig.defaults(), allocator, tieringThreads, TieringHooks.NONE, Clock.systemUTC())
                .tier(load(table));
        assertThat(result.outcome()).isIn(TieringResult.Outcome.TIERED, TieringResult.Outcome.UP_TO_DATE);
    }

    @Override
    public void close() throws Exception {
        tieringThreads.shutdownNow();
        catalog.close();
        allocator.close();
    }
}
