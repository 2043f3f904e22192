package io.lakestream.catalog;

import static io.lakestream.common.LakestreamError.SCHEMA_CHANGE_UNSUPPORTED;

import io.lakestream.common.LakestreamException;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Checks the user's arguments of one {@code ALTER TABLE} (names and paths) before {@link SchemaEvolution} hands them
 * to Iceberg's {@code UpdateSchema}, so that a mistake gets a coded error saying what is wrong and what to do instead
 * of Iceberg's {@code IllegalArgumentException} (or, for names differing only in case, no error at all and a table
 * Trino cannot read). Trino and Spark refuse most of these themselves before the catalog is called; the Java API
 * ({@code LakestreamCatalog.alterTable}) and the paths the engines leave to the connector (a map's key, a list's
 * element) get these messages. One instance per ALTER: it remembers the names the ALTER's earlier changes add.
 */
final class AlterArguments {
    private final String table;
    private final Schema schema;
    // "<parent field id>/<lower-case name>" of every column or field an earlier change of this ALTER added or renamed
    // to; the table's columns have parent id 0 (no field has id 0)
    private final Set<String> newNames = new HashSet<>();

    AlterArguments(String table, Schema schema) {
        this.table = table;
        this.schema = schema;
    }

    /**
     * Refuses a new column or field name (added, or renamed to) that a sibling already has, ignoring case: Trino folds
     * names to lower case, so two names differing only in case could not both be read, and Spark (by default) resolves
     * them ignoring case too. {@code renamed} is the field being renamed (it may change the case of its own name), or
     * null for an added one. Returns false when an added column exists and the ALTER said {@code IF NOT EXISTS}.
     */
    boolean requireNewName(
            Types.NestedField parent,
            Types.StructType siblings,
            List<String> parentPath,
            String newName,
            Types.NestedField renamed,
            boolean ifNotExists) {
        String shown = dotted(parentPath, newName);
        for (Types.NestedField sibling : siblings.fields()) {
            if (sibling.name().equalsIgnoreCase(newName)
                    && (renamed == null || sibling.fieldId() != renamed.fieldId())) {
                if (ifNotExists) {
                    return false;
                }
                throw unsupported(
                        ("column '%s' already exists%s; choose another name (names are compared ignoring case, as Trino"
                                        + " folds them to lower case), or drop or rename the existing column first")
                                .formatted(
                                        shown,
                                        sibling.name().equals(newName)
                                                ? ""
                                                : " as '%s'".formatted(dotted(parentPath, sibling.name()))));
            }
        }
        String key = (parent == null ? 0 : parent.fieldId()) + "/" + newName.toLowerCase(Locale.ROOT);
        if (!newNames.add(key)) {
            if (ifNotExists) {
                return false;
            }
            throw unsupported(
                    ("column '%s' is named twice in this ALTER TABLE (names are compared ignoring case); give each new or"
                                    + " renamed column its own name")
                            .formatted(shown));
        }
        return true;
    }

    /**
     * Refuses a change of anything inside a map's key (Iceberg cannot change map keys: a map is looked up by its
     * whole key, and the keys already written would no longer match), and a drop or rename of a map's key or value
     * or a list's element itself (they are part of the column's type, not fields of their own).
     */
    void requireChangeable(List<String> path, String change, boolean structural) {
        Type type = schema.asStruct();
        for (int i = 0; i < path.size(); i++) {
            String name = path.get(i);
            boolean last = i == path.size() - 1;
            switch (type) {
                case Types.MapType map
                when name.equals("key") ->
                    throw unsupported(
                            ("'%s' cannot be %s: it is in the key of the map column '%s', and Iceberg cannot change map"
                                            + " keys (every map is looked up by its whole key). Add a new column of the map"
                                            + " type you want, copy the values (UPDATE ... SET), then drop '%s'")
                                    .formatted(
                                            String.join(".", path),
                                            change,
                                            String.join(".", path.subList(0, i)),
                                            String.join(".", path.subList(0, i))));
                case Types.MapType _, Types.ListType _
                when last && structural ->
                    throw unsupported(
                            ("'%s' cannot be %s: a map's value and a list's element are part of the type of '%s', not"
                                            + " fields of their own; drop the column '%s', or change the fields inside '%s'")
                                    .formatted(
                                            String.join(".", path),
                                            change,
                                            String.join(".", path.subList(0, i)),
                                            String.join(".", path.subList(0, i)),
                                            String.join(".", path)));
                default -> {}
            }
            Types.NestedField field = switch (type) {
                case Types.StructType struct ->
                    struct.field(name) != null ? struct.field(name) : ignoringCase(struct, name);
                case Types.ListType list ->
                    name.equals("element") ? list.fields().getFirst() : null;
                case Types.MapType map -> name.equals("value") ? map.fields().get(1) : null;
                default -> null;
            };
            if (field == null) {
                // SchemaEvolution names the missing column
                return;
            }
            type = field.type();
        }
    }

    private static Types.NestedField ignoringCase(Types.StructType struct, String name) {
        List<Types.NestedField> matches = struct.fields().stream()
                .filter(field -> field.name().equalsIgnoreCase(name))
                .toList();
        return matches.size() == 1 ? matches.getFirst() : null;
    }

    /** What Iceberg refuses that the checks above did not foresee: still coded, with Iceberg's reason. */
    static LakestreamException refusedByIceberg(String table, RuntimeException e) {
        return new LakestreamException(
                SCHEMA_CHANGE_UNSUPPORTED,
                "Cannot alter table %s: Iceberg refuses the change (%s); nothing was changed"
                        .formatted(table, e.getMessage()),
                e);
    }

    private LakestreamException unsupported(String problem) {
        return new LakestreamException(
                SCHEMA_CHANGE_UNSUPPORTED, "Cannot alter table %s: %s".formatted(table, problem));
    }

    private static String dotted(List<String> parentPath, String name) {
        return parentPath.isEmpty() ? name : String.join(".", parentPath) + "." + name;
    }
}
