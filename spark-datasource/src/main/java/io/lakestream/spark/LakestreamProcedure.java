package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_NAME;
import static java.util.Objects.requireNonNull;

import io.lakestream.catalog.LakestreamCatalog;
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
import org.apache.spark.sql.connector.catalog.procedures.ProcedureParameter;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;
import org.apache.spark.sql.connector.read.LocalScan;
import org.apache.spark.sql.connector.read.Scan;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;

/**
 * What the procedures of a Lakestream catalog share: their signature (name, description, parameters), the catalog
 * they run in, binding (their parameters do not depend on the input types), the {@code table} argument, and a
 * result of rows computed on the driver. A procedure holds only its own logic ({@link #call}).
 */
abstract class LakestreamProcedure implements UnboundProcedure, BoundProcedure {
    /** What Spark shows of a procedure: its name in the {@code system} namespace, what it does, its parameters. */
    record Signature(String name, String description, List<ProcedureParameter> parameters) {
        Signature {
            requireNonNull(name, "name is null");
            requireNonNull(description, "description is null");
            parameters = List.copyOf(requireNonNull(parameters, "parameters is null"));
        }
    }

    /** The catalog a procedure runs in: its name, its options ({@code tiering.*} among them), its tables. */
    record Context(String catalogName, Map<String, String> catalogOptions, LakestreamCatalog catalog) {
        Context {
            requireNonNull(catalogName, "catalogName is null");
            catalogOptions = Map.copyOf(requireNonNull(catalogOptions, "catalogOptions is null"));
            requireNonNull(catalog, "catalog is null");
        }
    }

    /** The {@code table} argument every procedure takes first ({@link #table}). */
    static final ProcedureParameter TABLE =
            ProcedureParameter.in("table", DataTypes.StringType).build();

    private final Signature signature;
    private final Context context;

    LakestreamProcedure(Signature signature, Context context) {
        this.signature = requireNonNull(signature, "signature is null");
        this.context = requireNonNull(context, "context is null");
    }

    @Override
    public final String name() {
        return signature.name();
    }

    @Override
    public final String description() {
        return signature.description();
    }

    @Override
    public final ProcedureParameter[] parameters() {
        return signature.parameters().toArray(ProcedureParameter[]::new);
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
        return context.catalogName();
    }

    final Map<String, String> catalogOptions() {
        return context.catalogOptions();
    }

    /** The table named by the string argument at {@code ordinal} ({@code namespace.table}), loaded now. */
    final LakestreamTable table(InternalRow args, int ordinal) {
        if (args.isNullAt(ordinal)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "system.%s needs the table: CALL %s.system.%s(table => 'db.t')"
                            .formatted(name(), catalogName(), name()));
        }
        return context.catalog()
                .loadTable(identifier(args.getUTF8String(ordinal).toString()));
    }

    private TableIdentifier identifier(String name) {
        List<String> parts = Arrays.asList(name.trim().split("\\."));
        if (parts.size() < 2 || parts.stream().anyMatch(String::isBlank)) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "A procedure takes a table as 'namespace.table' in catalog %s, not '%s'"
                            .formatted(catalogName(), name));
        }
        return TableIdentifier.of(
                Namespace.of(parts.subList(0, parts.size() - 1).toArray(String[]::new)), parts.getLast());
    }

    /** An optional argument: NULL when the call leaves it out. */
    static ProcedureParameter optional(String name, DataType type) {
        return ProcedureParameter.in(name, type).defaultValue("NULL").build();
    }

    /** The procedure's result: one row of the given schema. */
    static Iterator<Scan> result(StructType schema, InternalRow row) {
        return Collections.<Scan>singletonList(new Rows(schema, new InternalRow[] {row}))
                .iterator();
    }

    private record Rows(StructType readSchema, InternalRow[] rows) implements LocalScan {}
}
