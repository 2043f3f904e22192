package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.UNSUPPORTED_OPERATION;

import io.lakestream.common.LakestreamException;
import java.util.List;
import java.util.Map;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.procedures.UnboundProcedure;

/** The procedures of a Lakestream Spark catalog, in its {@code system} namespace (as Iceberg's). */
final class LakestreamProcedures {
    static final String NAMESPACE = "system";
    private static final List<String> NAMES = List.of(
            LakestreamTierProcedure.NAME,
            LakestreamCompactProcedure.NAME,
            LakestreamExpireSnapshotsProcedure.NAME,
            LakestreamMaintenanceProcedure.Kind.EXPIRE_LOG.procedureName(),
            LakestreamMaintenanceProcedure.Kind.REMOVE_ORPHANS.procedureName());

    private LakestreamProcedures() {}

    static UnboundProcedure load(
            String catalogName,
            Map<String, String> catalogOptions,
            io.lakestream.catalog.LakestreamCatalog catalog,
            Identifier ident) {
        if (isSystem(ident.namespace())) {
            if (ident.name().equalsIgnoreCase(LakestreamTierProcedure.NAME)) {
                return new LakestreamTierProcedure(catalogName, catalogOptions, catalog);
            }
            if (ident.name().equalsIgnoreCase(LakestreamCompactProcedure.NAME)) {
                return new LakestreamCompactProcedure(catalogName, catalogOptions, catalog);
            }
            if (ident.name().equalsIgnoreCase(LakestreamExpireSnapshotsProcedure.NAME)) {
                return new LakestreamExpireSnapshotsProcedure(catalogName, catalogOptions, catalog);
            }
            for (LakestreamMaintenanceProcedure.Kind kind : LakestreamMaintenanceProcedure.Kind.values()) {
                if (ident.name().equalsIgnoreCase(kind.procedureName())) {
                    return new LakestreamMaintenanceProcedure(kind, catalogName, catalogOptions, catalog);
                }
            }
        }
        throw new LakestreamException(
                UNSUPPORTED_OPERATION,
                "Catalog %s has no procedure %s; its procedures are %s.%s"
                        .formatted(catalogName, ident, NAMESPACE, NAMES));
    }

    static Identifier[] list(String[] namespace) {
        if (!isSystem(namespace)) {
            return new Identifier[0];
        }
        return NAMES.stream()
                .map(name -> Identifier.of(new String[] {NAMESPACE}, name))
                .toArray(Identifier[]::new);
    }

    private static boolean isSystem(String[] namespace) {
        return namespace.length == 1 && namespace[0].equalsIgnoreCase(NAMESPACE);
    }
}
