package io.lakestream.sqltests;

import static io.trino.testing.TestingSession.testSessionBuilder;

import io.lakestream.trino.LakestreamConnectorFactory;
import io.lakestream.trino.LakestreamPlugin;
import io.trino.testing.DistributedQueryRunner;
import io.trino.testing.MaterializedRow;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** A real in-process Trino (coordinator and one worker) with the {@code lakestream} catalog over the warehouse. */
final class TrinoEngine implements AutoCloseable {
    static final String CATALOG = "lakestream";

    private final DistributedQueryRunner runner;

    TrinoEngine(Path warehouse) throws Exception {
        runner = DistributedQueryRunner.builder(
                        testSessionBuilder().setCatalog(CATALOG).build())
                .setWorkerCount(1)
                .build();
        try {
            runner.installPlugin(new LakestreamPlugin());
            runner.createCatalog(
                    CATALOG,
                    LakestreamConnectorFactory.CONNECTOR_NAME,
                    Map.of("lakestream.catalog.type", "jdbc", "lakestream.warehouse", warehouse.toString()));
        } catch (Throwable e) {
            runner.close();
            throw e;
        }
    }

    /** Runs one statement; returns its rows (an INSERT returns its row count), values normalized by {@link Values}. */
    List<List<Object>> query(String statement) {
        try {
            List<List<Object>> rows = new ArrayList<>();
            for (MaterializedRow row : runner.execute(statement).getMaterializedRows()) {
                List<Object> values = new ArrayList<>(row.getFieldCount());
                for (Object field : row.getFields()) {
                    values.add(Values.normalize(field));
                }
                rows.add(values);
            }
            return rows;
        } catch (RuntimeException e) {
            throw new EngineException("Trino", statement, e);
        }
    }

    @Override
    public void close() {
        runner.close();
    }
}
