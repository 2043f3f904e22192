package io.lakestream.sqltests;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.catalog.LakestreamCatalog;
import io.lakestream.log.S3LogFileSystem;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.S3MockServer;
import io.lakestream.testing.Seeds;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cross-engine randomized scenario ({@link RandomizedCrossEngineScenario}) once more with the whole
 * warehouse, lake and log, on S3 (S3Mock, a real S3 protocol server in its own JVM) and the catalog in
 * PostgreSQL (a real server): Trino writes and reads through its own S3 file system, Spark, the Java writer
 * and the tiering service through the AWS SDK, every log commit with S3's conditional create. After the
 * last round and a final tiering pass, Trino's stock Iceberg connector reads the lake from S3 through the
 * same PostgreSQL catalog. Fewer rounds than the local run (the CI budget); the seed is {@code
 * -Dlakestream.test.seed} (default 20) and printed on failure.
 */
final class TestCrossEngineRandomizedOnS3 {
    private static final String BUCKET = "lakestream";
    private static final String WAREHOUSE = "s3://" + BUCKET + "/randomized";
    private static final int ROUNDS = 5;

    @TempDir
    static Path directory;

    private static S3MockServer s3;
    private static PostgresServer postgres;
    private static ServerCatalog catalog;
    private static LakestreamCatalog javaCatalog;

    private final CrossEngine engines = CrossEngine.get();

    @BeforeAll
    static void startServers() throws Exception {
        s3 = S3MockServer.start(BUCKET);
        postgres = PostgresServer.start(directory);
        postgres.createDatabase("randomized_s3");
        catalog = postgres.catalog("pg_s3", "randomized_s3", WarehouseStorage.s3(s3, WAREHOUSE));
        CrossEngine.get().addCatalog(catalog);
        javaCatalog = LakestreamCatalog.open(catalog.config());
    }

    @AfterAll
    static void stopServers() throws Exception {
        if (javaCatalog != null) {
            javaCatalog.close();
        }
        if (postgres != null) {
            postgres.close();
        }
        if (s3 != null) {
            s3.close();
        }
    }

    @Test
    void randomChangesFromBothEnginesAcrossTieringOnS3() {
        long seed = Seeds.seed(20);
        RandomizedCrossEngineScenario scenario =
                new RandomizedCrossEngineScenario(engines, catalog.name(), javaCatalog, ROUNDS);
        RandomizedCrossEngineScenario.Outcome outcome = scenario.run(seed, new Random(seed));

        LakestreamTable pk = scenario.table(outcome.schema(), "pk");
        assertThat(pk.lake().location()).startsWith(WAREHOUSE + "/");
        assertThat(pk.log().fileSystem()).isInstanceOf(S3LogFileSystem.class);
        assertThat(pk.log().paths().root()).startsWith(WAREHOUSE + "/");

        // the lake caught up: Trino's stock Iceberg connector reads it from S3 through the same catalog
        engines.tier(pk);
        engines.tier(scenario.table(outcome.schema(), "log"));
        String stock = catalog.stockIcebergName() + "." + outcome.schema();
        assertThat(Values.format(engines.trino("SELECT id, v, w FROM " + stock + ".pk"), false))
                .as("the stock Iceberg connector on the primary-key lake, seed " + seed)
                .isEqualTo(Values.format(outcome.primaryKeyRows(), false));
        assertThat(Values.format(engines.trino("SELECT id, v, w FROM " + stock + ".log"), false))
                .as("the stock Iceberg connector on the append-only lake, seed " + seed)
                .isEqualTo(Values.format(outcome.appendedRows(), false));
    }
}
