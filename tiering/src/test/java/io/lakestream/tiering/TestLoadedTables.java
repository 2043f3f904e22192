package io.lakestream.tiering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.lakestream.log.ChangeType;
import io.lakestream.table.LakestreamTable;
import io.lakestream.testing.TestingWarehouse;
import java.nio.file.Path;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tiering service's loaded tables against fresh loads from the catalog: reused, and current, while
 * the table only gets new snapshots; loaded afresh after a property change, a schema change, and a drop
 * and re-create under the same name; a dropped table is the catalog's own TABLE_NOT_FOUND error.
 */
class TestLoadedTables {
    @TempDir
    Path directory;

    @Test
    void reusedAndCurrentWhileOnlySnapshotsChange() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            LakestreamTable created = warehouse.createPrimaryKeyTable("t", 2);
            LoadedTables tables = new LoadedTables(warehouse.catalog());
            LakestreamTable first = tables.load(created.identifier());
            assertThat(tables.load(created.identifier())).isSameAs(first);

            new LakeOracle(created).commit(warehouse.allocator(), TieringTests.rows(ChangeType.UPSERT, 0, 20, "a"));
            try (TieringService service = new TieringService(warehouse.catalog(), TieringConfig.defaults())) {
                assertThat(service.tierTable(created.identifier()).outcome()).isEqualTo(TieringResult.Outcome.TIERED);
            }
            LakestreamTable again = tables.load(created.identifier());
            assertThat(again).isSameAs(first);
            assertThat(again.lake().currentSnapshot().snapshotId())
                    .isEqualTo(warehouse.load("t").lake().currentSnapshot().snapshotId());
        }
    }

    @Test
    void loadedAfreshWhenPropertiesOrSchemaChange() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            TableIdentifier identifier = warehouse.createPrimaryKeyTable("t", 2).identifier();
            LoadedTables tables = new LoadedTables(warehouse.catalog());
            LakestreamTable first = tables.load(identifier);

            warehouse.load("t").lake().updateProperties().set("owner", "x").commit();
            LakestreamTable afterProperties = tables.load(identifier);
            assertThat(afterProperties).isNotSameAs(first);
            assertThat(afterProperties.lake().properties()).containsEntry("owner", "x");
            assertThat(tables.load(identifier)).isSameAs(afterProperties);

            warehouse
                    .load("t")
                    .lake()
                    .updateSchema()
                    .addColumn("extra", Types.StringType.get())
                    .commit();
            LakestreamTable afterSchema = tables.load(identifier);
            assertThat(afterSchema).isNotSameAs(afterProperties);
            assertThat(afterSchema.definition().schema().findField("extra")).isNotNull();
        }
    }

    @Test
    void droppedAndRecreatedTables() {
        try (TestingWarehouse warehouse = new TestingWarehouse(directory)) {
            TableIdentifier identifier = warehouse.createPrimaryKeyTable("t", 2).identifier();
            LoadedTables tables = new LoadedTables(warehouse.catalog());
            LakestreamTable first = tables.load(identifier);

            warehouse.catalog().dropTable(identifier);
            warehouse.createAppendOnlyTable("t", 3);
            LakestreamTable recreated = tables.load(identifier);
            assertThat(recreated).isNotSameAs(first);
            assertThat(recreated.lake().uuid()).isNotEqualTo(first.lake().uuid());
            assertThat(recreated.definition().bucketCount()).isEqualTo(3);

            warehouse.catalog().dropTable(identifier);
            assertThatThrownBy(() -> tables.load(identifier))
                    .isInstanceOfSatisfying(
                            LakestreamException.class,
                            e -> assertThat(e.error()).isEqualTo(LakestreamError.TABLE_NOT_FOUND));
        }
    }
}
