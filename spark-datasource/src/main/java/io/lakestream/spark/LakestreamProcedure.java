package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_NAME;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.table.LakestreamTable;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.sql.connector.catalog.procedures.BoundProcedure;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.StructType;

/**
 * What the procedures of a Lakestream catalog share: the catalog they run in, binding (their parameters do not
 * depend on the input types), the {@code table} argument, and a result of rows computed on the driver.
 */
abstract class LakestreamProcedure implements UnboundProcedure, BoundProcedure {
    private final String catalogName;
    private final Map<String, String> catalogOptions;
    private final io.lakestream.catalog.LakestreamCatalog catalog;

    LakestreamProcedure(
            String catalogName, Map<String, String> catalogOptions, io.lakestream.catalog.LakestreamCatalog catalog) {
        this.catalogName = requireNonNull(catalogName, "catalogName is null");
        this.catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
        this.catalog = requireNonNull(catalog, "catalog is null");
    }

    @Override
    public final BoundProcedure bind(StructType inputType) {
        return this;
    }

    @Override
    public final boolean isDeterministic() {
        return false;
    }

    final String catalogName() {
        return catalogName;
    }

    final Map<String, String> catalogOptions() {
        return catalogOptions;
    }

    /** The table named by the string argument at {@code ordinal} ({@code namespace.table}), loaded now. */
    final LakestreamTable table(InternalRow args, int ordinal) {
        if (args.isNullAt(ordinal)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "system.%s needs the table: CALL %s.system.%s(table => 'db.t')"
                            .formatted(name(), catalogName, name()));
        }
        return catalog.loadTable(identifier(args.getUTF8String(ordinal).toString()));
    }

    private TableIdentifier identifier(String name) {
        List<String> parts = Arrays.asList(name.trim().split("\\."));
        if (parts.size() < 2 || parts.stream().anyMatch(String::isBlank)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "A procedure takes a table as 'namespace.table' in catalog %s, not '%s'"
                            .formatted(catalogName, name));
        }
        return TableIdentifier.of(
                Namespace.of(parts.subList(0, parts.size() - 1).toArray(String[]::new)), parts.getLast());
    }

    /** The procedure's result: one row of the given schema. */
    static Iterator<Scan> result(StructType schema, InternalRow row) {
        return Collections.<Scan>singletonList(new Rows(schema, new InternalRow[] {row}))
                .iterator();
    }

    private record Rows(StructType readSchema, InternalRow[] rows) implements LocalScan {}
}
