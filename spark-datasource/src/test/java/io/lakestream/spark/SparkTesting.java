package io.lakestream.spark;

import io.lakestream.testing.TestingWarehouse;
import io.lakestream.tiering.TableTiering;
import io.lakestream.tiering.TieringConfig;
import io.lakestream.tiering.TieringHooks;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.write.BatchWrite;
import org.apache.spark.sql.connector.write.DataWriter;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriterCommitMessage;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * One local Spark session for the whole test JVM (it takes seconds to start), with the Lakestream
 * catalog {@code ls} (and {@code lakestream}, the default of {@code format("lakestream")}) on one
 * embedded warehouse. Each test class works in its own namespace. The same warehouse is open to the
 * Java writer and the real tiering service, as another process would see it.
 */
final class SparkTesting {
    static final String CATALOG = "ls";

    private static SparkTesting instance;

    private final Path warehouseDirectory;
    private final SparkSession spark;
    private final TestingWarehouse warehouse;
    private final ExecutorService tieringThreads = Executors.newFixedThreadPool(2);
    private final TableTiering tiering;

    private SparkTesting() {
        try {
            warehouseDirectory = Files.createTempDirectory("lakestream-spark");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        SparkSession.Builder builder = SparkSession.builder()
                .master("local[2]")
                .appName("lakestream-spark-test")
                .config("spark.ui.enabled", "false")
                .config("spark.sql.shuffle.partitions", "2")
                .config("spark.driver.host", "localhost")
                // plain plans, so tests find the scan node and its metrics
                .config("spark.sql.adaptive.enabled", "false")
                .config("spark.sql.session.timeZone", "UTC");
        for (String name : List.of(CATALOG, LakestreamSource.DEFAULT_CATALOG)) {
            builder.config("spark.sql.catalog." + name, LakestreamCatalog.class.getName())
                    .config("spark.sql.catalog." + name + ".warehouse", warehouseDirectory.toString());
        }
        spark = builder.getOrCreate();
        warehouse = new TestingWarehouse(warehouseDirectory);
        tiering = new TableTiering(
                TieringConfig.defaults(), warehouse.allocator(), tieringThreads, TieringHooks.NONE, Clock.systemUTC());
        Runtime.getRuntime().addShutdownHook(new Thread(this::stop));
    }

    static synchronized SparkTesting get() {
        if (instance == null) {
            instance = new SparkTesting();
        }
        return instance;
    }

    SparkSession spark() {
        return spark;
    }

    TestingWarehouse warehouse() {
        return warehouse;
    }

    TableTiering tiering() {
        return tiering;
    }

    Path warehouseDirectory() {
        return warehouseDirectory;
    }

    Dataset<Row> sql(String sql) {
        return spark.sql(sql);
    }

    /** A table of the {@code ls} catalog, loaded as Spark's planner loads it (for driving a write by hand). */
    LakestreamTable loadTable(String namespace, String table) throws NoSuchTableException {
        TableCatalog catalog =
                (TableCatalog) spark.sessionState().catalogManager().catalog(CATALOG);
        return (LakestreamTable) catalog.loadTable(Identifier.of(new String[] {namespace}, table));
    }

    /** A write into a table of the {@code ls} catalog as Spark's planner builds it, to drive the write protocol by hand. */
    BatchWrite batchWrite(String namespace, String table, String queryId) {
        try {
            LakestreamTable loaded = loadTable(namespace, table);
            return loaded.newWriteBuilder(writeInfo(queryId, loaded.schema()))
                    .build()
                    .toBatch();
        } catch (NoSuchTableException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One task of a write (on this JVM, as an executor runs it): stages the rows, returns its commit message. */
    static WriterCommitMessage writeTask(BatchWrite write, int partition, List<InternalRow> rows) {
        try (DataWriter<InternalRow> writer =
                write.createBatchWriterFactory(null).createWriter(partition, partition)) {
            for (InternalRow row : rows) {
                writer.write(row);
            }
            return writer.commit();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What Spark hands a write builder: no options, the query's id and the schema of the rows. */
    static LogicalWriteInfo writeInfo(String queryId, StructType schema) {
        return new LogicalWriteInfo() {
            @Override
            public CaseInsensitiveStringMap options() {
                return CaseInsensitiveStringMap.empty();
            }

            @Override
            public String queryId() {
                return queryId;
            }

            @Override
            public StructType schema() {
                return schema;
            }
        };
    }

    /** Rows as lists of values (null for SQL NULL), in the order Spark returns them. */
    static List<List<Object>> rows(Dataset<Row> frame) {
        List<List<Object>> rows = new ArrayList<>();
        for (Row row : frame.collectAsList()) {
            List<Object> values = new ArrayList<>(row.size());
            for (int i = 0; i < row.size(); i++) {
                values.add(row.isNullAt(i) ? null : row.get(i));
            }
            rows.add(values);
        }
        return rows;
    }

    private void stop() {
        spark.stop();
        tieringThreads.shutdownNow();
        warehouse.close();
    }
}
