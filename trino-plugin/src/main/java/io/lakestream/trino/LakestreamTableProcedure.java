package io.lakestream.trino;

import static io.trino.plugin.base.session.PropertyMetadataUtil.dataSizeProperty;
import static io.trino.plugin.base.session.PropertyMetadataUtil.durationProperty;
import static io.trino.spi.session.PropertyMetadata.integerProperty;
import static io.trino.spi.session.PropertyMetadata.stringProperty;

import io.airlift.units.DataSize;
import io.airlift.units.Duration;
import io.trino.spi.connector.TableProcedureExecutionMode;
import io.trino.spi.connector.TableProcedureMetadata;
import io.trino.spi.session.PropertyMetadata;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The table procedures of the connector ({@code ALTER TABLE t EXECUTE <name>(...)}), each run on the coordinator
 * with the tiering module's own code, as the Spark procedures of the same names ({@link LakestreamTableProcedures}).
 */
public enum LakestreamTableProcedure {
    /**
     * {@code compact(target_file_size => '128MB') [WHERE ...]}: every bucket (that the {@code WHERE} selects) with
     * several data files or a delete file. Trino accepts a {@code WHERE} only for a procedure that reads the table
     * ({@link TableProcedureExecutionMode#distributedWithFilteringAndRepartitioning}); see {@link
     * LakestreamMetadata#beginTableExecute}.
     */
    COMPACT(
            TableProcedureExecutionMode.distributedWithFilteringAndRepartitioning(),
            List.of(dataSizeProperty(
                    "target_file_size",
                    "Size the rewritten data files roll over at",
                    DataSize.of(128, DataSize.Unit.MEGABYTE),
                    false))),
    /** {@code expire_snapshots(retention_threshold => '5d', retain_last => 1)}. */
    EXPIRE_SNAPSHOTS(
            TableProcedureExecutionMode.coordinatorOnly(),
            List.of(
                    durationProperty(
                            "retention_threshold",
                            "Expire lake snapshots that stopped being current longer ago than this",
                            Duration.valueOf("5d"),
                            false),
                    integerProperty("retain_last", "Lake snapshots always kept, at least 1", 1, false))),
    /** {@code expire_log(retention_threshold => '24h')}: log segments the lake holds, committed longer ago. */
    EXPIRE_LOG(
            TableProcedureExecutionMode.coordinatorOnly(),
            List.of(durationProperty(
                    "retention_threshold", "Remove tiered log segments committed longer ago than this", null, false))),
    /** {@code remove_orphans}: one orphan sweep of the log and the lake with the tiering service's ages. */
    REMOVE_ORPHANS(TableProcedureExecutionMode.coordinatorOnly(), List.of()),
    /**
     * {@code expire_partitions(retention => '30d')}: the tiering service's partition expiry now, by {@code retention}
     * (the table property's syntax) or, without it, by the table's {@code partition_expiration}.
     */
    EXPIRE_PARTITIONS(
            TableProcedureExecutionMode.coordinatorOnly(),
            List.of(stringProperty(
                    "retention",
                    "Expire partitions whose time range ended longer ago than this ('30d', 'P30D'); default: the table's"
                            + " partition_expiration",
                    null,
                    false)));

    private final TableProcedureExecutionMode executionMode;
    private final List<PropertyMetadata<?>> properties;

    LakestreamTableProcedure(TableProcedureExecutionMode executionMode, List<PropertyMetadata<?>> properties) {
        this.executionMode = executionMode;
        this.properties = List.copyOf(properties);
    }

    public String procedureName() {
        return name().toLowerCase(Locale.ROOT);
    }

    TableProcedureMetadata metadata() {
        return new TableProcedureMetadata(name(), executionMode, properties);
    }

    static Set<TableProcedureMetadata> all() {
        return Stream.of(values()).map(LakestreamTableProcedure::metadata).collect(Collectors.toUnmodifiableSet());
    }

    static Optional<LakestreamTableProcedure> find(String name) {
        return Stream.of(values())
                .filter(procedure -> procedure.name().equalsIgnoreCase(name))
                .findFirst();
    }
}
