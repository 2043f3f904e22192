package io.lakestream.trino;

import io.trino.testing.AbstractTestQueryFramework;
import io.trino.testing.QueryRunner;
import java.nio.file.Files;
import java.nio.file.Path;
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
        QueryRunner runner =
                LakestreamQueryRunner.builder(warehouse).setWorkerCount(1).build();
        tables = new LakestreamTestTables(warehouse);
        return runner;
    }

    @AfterAll
    void closeTables() throws Exception {
        tables.close();
    }
}
