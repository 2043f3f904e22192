package io.lakestream.table;

import static java.util.Objects.requireNonNull;

import io.lakestream.bucket.BucketFunction;
import io.lakestream.log.StreamLog;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Type;

/** A loaded Lakestream table: its lake (an Iceberg table), its definition and its log. */
public final class LakestreamTable {
    private final TableIdentifier identifier;
    private final Table lake;
    private final TableDefinition definition;
    private final StreamLog log;
    private final Optional<BucketFunction> bucketFunction;
    private final int[] bucketKeyPositions;

    public LakestreamTable(TableIdentifier identifier, Table lake, TableDefinition definition, StreamLog log) {
        this.identifier = requireNonNull(identifier, "identifier is null");
        this.lake = requireNonNull(lake, "lake is null");
        this.definition = requireNonNull(definition, "definition is null");
        this.log = requireNonNull(log, "log is null");
        List<String> bucketKey = definition.bucketKey();
        this.bucketKeyPositions = bucketKey.stream()
                .mapToInt(name -> columnPosition(definition, name))
                .toArray();
        List<Type> keyTypes = bucketKey.stream()
                .map(name -> definition.schema().findType(name))
                .toList();
        this.bucketFunction = bucketKey.isEmpty()
                ? Optional.empty()
                : Optional.of(new BucketFunction(keyTypes, definition.bucketCount()));
    }

    public TableIdentifier identifier() {
        return identifier;
    }

    public Table lake() {
        return lake;
    }

    public TableDefinition definition() {
        return definition;
    }

    public StreamLog log() {
        return log;
    }

    public Optional<BucketFunction> bucketFunction() {
        return bucketFunction;
    }

    /** Positions of the bucket key columns in the user schema, in bucket key order. */
    public int[] bucketKeyPositions() {
        return bucketKeyPositions.clone();
    }

    /** Default log location for a table location. */
    public static String defaultLogLocation(String tableLocation) {
        String base =
                tableLocation.endsWith("/") ? tableLocation.substring(0, tableLocation.length() - 1) : tableLocation;
        return base + "/" + LakestreamProperties.DEFAULT_LOG_DIRECTORY;
    }

    private static int columnPosition(TableDefinition definition, String name) {
        List<org.apache.iceberg.types.Types.NestedField> columns =
                definition.schema().columns();
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(name)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no column " + name);
    }

    @Override
    public String toString() {
        return identifier.toString();
    }
}
