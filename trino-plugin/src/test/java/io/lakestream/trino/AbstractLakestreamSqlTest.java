package io.lakestream.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/**
 * A one-worker Lakestream query runner over a fresh warehouse, plus {@link LakestreamTestTables}
 * on the same warehouse for what SQL cannot do (tiering, Java-writer changes).
 */
abstract class AbstractLakestreamSqlTest extends AbstractTestQueryFramework {
    protected LakestreamTestTables tables;
    protected Path warehouse;

    @Override
    protected QueryRunner createQueryRunner() throws Exception {
        warehouse = Files.createTempDirectory("lakestream-trino-" + getClass().getSimpleName());
        LakestreamQueryRunner.Builder builder =
                LakestreamQueryRunner.builder(warehouse).setWorkerCount(1);
        connectorProperties().forEach(builder::addConnectorProperty);
        QueryRunner runner = customize(builder).build();
        tables = new LakestreamTestTables(warehouse);
        return runner;
    }

    /** Catalog properties of the {@code lakestream} catalog beyond the warehouse (none: the defaults). */
    protected Map<String, String> connectorProperties() {
        return Map.of();
    }

    /** Further runner set-up of a subclass (extra catalogs); the default adds nothing. */
    protected LakestreamQueryRunner.Builder customize(LakestreamQueryRunner.Builder builder) {
        return builder;
    }

    @AfterAll
    void closeTables() throws Exception {
        tables.close();
    }
}
