package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.trino.testing.MaterializedResult;
import org.junit.jupiter.api.Test;

/**
 * Trino's stock Iceberg connector, loaded from the jars Trino 483 ships into its own plugin class
 * loader, reads the lake layer of Lakestream tables: it must return exactly what {@code "t$lake"}
 * returns, equality deletes of tiered updates and deletes included.
 */
final class TestStockIcebergConnector extends AbstractStockIcebergSqlTest {

    @Test
    void stockConnectorIsIsolatedFromOurs() {
        // each connector runs in its own plugin class loader, so each sees its own Iceberg version
        ClassLoader ours = getDistributedQueryRunner()
                .getCoordinator()
                .getConnector(LakestreamQueryRunner.CATALOG)
                .getClass()
                .getClassLoader();
        ClassLoader stock = getDistributedQueryRunner()
                .getCoordinator()
                .getConnector(StockIcebergCatalog.CATALOG)
                .getClass()
                .getClassLoader();
        assertThat(stock.getClass().getName()).isEqualTo("io.trino.server.PluginClassLoader");
        assertThat(stock).isNotSameAs(ours);
    }

    @Test
    void primaryKeyTableLakeEqualsStockIceberg() {
        assertUpdate("CREATE TABLE pk_stock (id bigint, name varchar, score integer, day date)"
                + " WITH (primary_key = ARRAY['id'], bucket_count = 4)");
        assertUpdate(
                "INSERT INTO pk_stock SELECT x, 'n' || CAST(x AS varchar), CAST(x % 7 AS integer),"
                        + " DATE '2026-01-01' + x * INTERVAL '1' DAY FROM UNNEST(sequence(1, 200)) t(x)",
                200);
        tables.tier("pk_stock");
        assertSameAsStock("pk_stock", "id, name, score, day");

        // updates and deletes become equality deletes in the lake
        assertUpdate("UPDATE pk_stock SET score = score + 100 WHERE id % 5 = 0", 40);
        assertUpdate("DELETE FROM pk_stock WHERE id % 7 = 0", 28);
        assertUpdate("INSERT INTO pk_stock VALUES (300, 'new', 1, DATE '2027-01-01'), (1, 'again', 2, NULL)", 2);
        tables.tier("pk_stock");
        assertSameAsStock("pk_stock", "id, name, score, day");
        assertQuery("SELECT count(*) FROM iceberg.tests.pk_stock", "VALUES 173");
        assertQuery("SELECT name, score FROM iceberg.tests.pk_stock WHERE id = 1", "VALUES ('again', 2)");

        // a log tail that is not tiered yet: the union read sees it, the lake (and the stock connector) do not
        assertUpdate("INSERT INTO pk_stock VALUES (500, 'tail', 5, NULL)", 1);
        assertSameAsStock("pk_stock", "id, name, score, day");
        assertQuery("SELECT count(*) FROM pk_stock", "VALUES 174");
        assertQuery("SELECT count(*) FROM iceberg.tests.pk_stock", "VALUES 173");
    }

    @Test
    void appendOnlyTableLakeEqualsStockIceberg() {
        assertUpdate("CREATE TABLE events_stock (id bigint NOT NULL, kind varchar, amount decimal(10, 2))"
                + " WITH (bucket_key = ARRAY['id'], bucket_count = 2)");
        assertUpdate(
                "INSERT INTO events_stock SELECT x, IF(x % 2 = 0, 'even', 'odd'), CAST(x AS decimal(10, 2)) / 4"
                        + " FROM UNNEST(sequence(1, 100)) t(x)",
                100);
        tables.tier("events_stock");
        assertUpdate("INSERT INTO events_stock VALUES (101, 'tail', 1.25)", 1);
        assertSameAsStock("events_stock", "id, kind, amount");
        assertQuery("SELECT count(*) FROM iceberg.tests.events_stock", "VALUES 100");
    }

    private void assertSameAsStock(String table, String columns) {
        for (String where : new String[] {"", " WHERE id < 50", " WHERE id % 3 = 1 AND id > 20"}) {
            MaterializedResult lake = computeActual("SELECT %s FROM \"%s$lake\"%s".formatted(columns, table, where));
            MaterializedResult stock =
                    computeActual("SELECT %s FROM iceberg.tests.%s%s".formatted(columns, table, where));
            assertThat(lake.getMaterializedRows())
                    .as("%s%s", table, where)
                    .containsExactlyInAnyOrderElementsOf(stock.getMaterializedRows());
        }
    }
}
