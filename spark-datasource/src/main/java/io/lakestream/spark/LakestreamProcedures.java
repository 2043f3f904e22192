package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/** The procedures of a Lakestream Spark catalog, in its {@code system} namespace (as Iceberg's). */
final class LakestreamProcedures {
    static final String NAMESPACE = "system";
    /** Each procedure by name, in the order Spark lists them. */
    private static final Map<String, Function<LakestreamProcedure.Context, LakestreamProcedure>> PROCEDURES =
            procedures();

    private LakestreamProcedures() {}

    private static Map<String, Function<LakestreamProcedure.Context, LakestreamProcedure>> procedures() {
        Map<String, Function<LakestreamProcedure.Context, LakestreamProcedure>> procedures = new LinkedHashMap<>();
        procedures.put(LakestreamTierProcedure.SIGNATURE.name(), LakestreamTierProcedure::new);
        procedures.put(LakestreamCompactProcedure.SIGNATURE.name(), LakestreamCompactProcedure::new);
        procedures.put(LakestreamExpireSnapshotsProcedure.SIGNATURE.name(), LakestreamExpireSnapshotsProcedure::new);
        procedures.put(LakestreamExpirePartitionsProcedure.SIGNATURE.name(), LakestreamExpirePartitionsProcedure::new);
        for (LakestreamMaintenanceProcedure.Kind kind : LakestreamMaintenanceProcedure.Kind.values()) {
            procedures.put(kind.signature().name(), context -> new LakestreamMaintenanceProcedure(kind, context));
        }
        return Collections.unmodifiableMap(procedures);
    }

    static UnboundProcedure load(
            String catalogName,
            Map<String, String> catalogOptions,
            io.lakestream.catalog.LakestreamCatalog catalog,
            Identifier ident) {
        if (isSystem(ident.namespace())) {
            Function<LakestreamProcedure.Context, LakestreamProcedure> procedure =
                    PROCEDURES.get(ident.name().toLowerCase(Locale.ROOT));
            if (procedure != null) {
                return procedure.apply(new LakestreamProcedure.Context(catalogName, catalogOptions, catalog));
            }
        }
        throw new LakestreamException(
                UNSUPPORTED_OPERATION,
                "Catalog %s has no procedure %s; its procedures are %s.%s"
                        .formatted(catalogName, ident, NAMESPACE, List.copyOf(PROCEDURES.keySet())));
    }

    static Identifier[] list(String[] namespace) {
        if (!isSystem(namespace)) {
            return new Identifier[0];
        }
        return PROCEDURES.keySet().stream()
                .map(name -> Identifier.of(new String[] {NAMESPACE}, name))
                .toArray(Identifier[]::new);
    }

    private static boolean isSystem(String[] namespace) {
        return namespace.length == 1 && namespace[0].equalsIgnoreCase(NAMESPACE);
    }
}
