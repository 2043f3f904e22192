package io.lakestream.table;

import static com.google.common.base.Preconditions.checkArgument;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.iceberg.Schema;

/**
 * What a user asks for when creating a Lakestream table. Validated and turned into an Iceberg
 * table by {@link TableLayout}.
 *
 * @param schema user columns (nested types are not supported)
 * @param primaryKey primary key columns; empty for an append-only table
 * @param bucketKey bucket key columns; empty means the primary key (or round-robin for an
 *     append-only table)
 * @param bucketCount number of log buckets, at least 1
 * @param logPath where the log lives; empty means {@code <table location>/log}
 * @param properties extra Iceberg table properties
 * @param partitioning the user's partitioning terms in Trino's spelling ({@link Partitioning}); empty for none
 * @param partitionedLog whether a partitioned table gets one log per (partition, bucket) rather than per bucket
 *     (recorded in the log's identity record, {@code LogIdentity.partitionedLog}); only with {@code partitioning}
 */
public record TableSpec(
        Schema schema,
        List<String> primaryKey,
        List<String> bucketKey,
        int bucketCount,
        Optional<String> logPath,
        Map<String, String> properties,
        List<String> partitioning,
        boolean partitionedLog) {
    /**
     * Whether a partitioned table is created with per-(partition, bucket) logs unless its spec says otherwise: on, so
     * the engines' {@code CREATE TABLE} of a partitioned table makes one (docs/format.md "The log of a partitioned
     * table"). It decides only for tables created now; every existing table keeps the log layout its identity record
     * names (a record without the field, or none, is a per-bucket log).
     */
    public static final boolean PARTITIONED_LOG_BY_DEFAULT = true;

    public TableSpec {
        partitioning = ImmutableList.copyOf(requireNonNull(partitioning, "partitioning is null"));
        requireNonNull(schema, "schema is null");
        primaryKey = ImmutableList.copyOf(requireNonNull(primaryKey, "primaryKey is null"));
        bucketKey = ImmutableList.copyOf(requireNonNull(bucketKey, "bucketKey is null"));
        requireNonNull(logPath, "logPath is null");
        properties = ImmutableMap.copyOf(requireNonNull(properties, "properties is null"));
        checkArgument(!partitionedLog || !partitioning.isEmpty(), "a partitioned log needs a partitioned table");
    }

    public static Builder builder(Schema schema) {
        return new Builder(schema);
    }

    public static final class Builder {
        private final Schema schema;
        private List<String> primaryKey = List.of();
        private List<String> bucketKey = List.of();
        private int bucketCount = 1;
        private Optional<String> logPath = Optional.empty();
        private Map<String, String> properties = Map.of();
        private List<String> partitioning = List.of();
        private Optional<Boolean> partitionedLog = Optional.empty();

        private Builder(Schema schema) {
            this.schema = requireNonNull(schema, "schema is null");
        }

        public Builder primaryKey(String... columns) {
            this.primaryKey = List.of(columns);
            return this;
        }

        public Builder primaryKey(List<String> columns) {
            this.primaryKey = columns;
            return this;
        }

        public Builder bucketKey(String... columns) {
            this.bucketKey = List.of(columns);
            return this;
        }

        public Builder bucketKey(List<String> columns) {
            this.bucketKey = columns;
            return this;
        }

        public Builder bucketCount(int bucketCount) {
            this.bucketCount = bucketCount;
            return this;
        }

        public Builder logPath(String logPath) {
            this.logPath = Optional.of(logPath);
            return this;
        }

        public Builder properties(Map<String, String> properties) {
            this.properties = properties;
            return this;
        }

        /** Partitioning terms as Trino's Iceberg connector spells them, e.g. {@code day(ts)}, {@code region}. */
        public Builder partitioning(List<String> terms) {
            this.partitioning = terms;
            return this;
        }

        /** Per-(partition, bucket) logs for a partitioned table, or per-bucket ones; {@link #PARTITIONED_LOG_BY_DEFAULT} if unset. */
        public Builder partitionedLog(boolean partitionedLog) {
            this.partitionedLog = Optional.of(partitionedLog);
            return this;
        }

        public TableSpec build() {
            return new TableSpec(
                    schema,
                    primaryKey,
                    bucketKey,
                    bucketCount,
                    logPath,
                    properties,
                    partitioning,
                    partitionedLog.orElse(PARTITIONED_LOG_BY_DEFAULT && !partitioning.isEmpty()));
        }
    }
}
