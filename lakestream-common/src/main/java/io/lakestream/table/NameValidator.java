package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_NAME;

import io.lakestream.common.LakestreamException;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Rejects namespace and table names that would address a path outside the warehouse or that file
 * systems treat specially: catalogs derive table locations from these names.
 */
public final class NameValidator {
    private NameValidator() {}

    public static void validate(TableIdentifier identifier) {
        validate(identifier.namespace());
        validateLevel(identifier.name(), "table");
    }

    public static void validate(Namespace namespace) {
        if (namespace.isEmpty()) {
            throw new LakestreamException(INVALID_NAME, "A table needs a namespace (schema), e.g. 'db.table'");
        }
        for (String level : namespace.levels()) {
            validateLevel(level, "namespace");
        }
    }

    private static void validateLevel(String name, String what) {
        String problem = null;
        if (name == null || name.isBlank()) {
            problem = "is empty";
        } else if (name.equals(".") || name.equals("..")) {
            problem = "would address a path outside the warehouse";
        } else if (name.contains("/") || name.contains("\\")) {
            problem = "contains a path separator";
        } else if (name.startsWith(".")) {
            problem = "starts with '.'";
        } else if (name.chars().anyMatch(c -> c < 0x20 || c == 0x7f)) {
            problem = "contains a control character";
        } else if (name.length() > 255) {
            problem = "is longer than 255 characters";
        }
        if (problem != null) {
            throw new LakestreamException(
                    INVALID_NAME,
                    "Invalid %s name '%s': it %s; use letters, digits and '_'".formatted(what, name, problem));
        }
    }
}
