package io.lakestream.trino;

/**
 * {@link AbstractLakestreamSqlTest} plus the {@code iceberg} catalog: Trino's stock Iceberg connector, in its
 * own plugin class loader, over the same warehouse, so a test can compare what stock Trino reads from the lake
 * with what Lakestream returns.
 */
abstract class AbstractStockIcebergSqlTest extends AbstractLakestreamSqlTest {
    @Override
    protected LakestreamQueryRunner.Builder customize(LakestreamQueryRunner.Builder builder) {
        return builder.withStockIcebergCatalog();
    }
}
