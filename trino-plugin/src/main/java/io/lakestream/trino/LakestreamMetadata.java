package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_SCHEMA_NOT_EMPTY;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_SCHEMA_NOT_FOUND;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_TABLE_ALREADY_EXISTS;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.inject.Inject;
import io.airlift.slice.Slice;
import io.lakestream.catalog.PinnedTable;
import io.lakestream.common.LakestreamException;
import io.lakestream.plan.ReadMode;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.LogCompression;
import io.lakestream.table.PartitionExpiration;
import io.lakestream.table.Partitioning;
import io.lakestream.table.SchemaChange;
import io.lakestream.table.TableDefinition;
import io.lakestream.table.TableSpec;
import io.lakestream.trino.system.OffsetsSystemTable;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.BeginTableExecuteResult;
import io.trino.spi.connector.ColumnHandle;
import io.trino.spi.connector.ColumnMetadata;
import io.trino.spi.connector.ColumnPosition;
import io.trino.spi.connector.ConnectorAccessControl;
import io.trino.spi.connector.ConnectorInsertTableHandle;
import io.trino.spi.connector.ConnectorMergeTableHandle;
import io.trino.spi.connector.ConnectorMetadata;
import io.trino.spi.connector.ConnectorOutputMetadata;
import io.trino.spi.connector.ConnectorOutputTableHandle;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableExecuteHandle;
import io.trino.spi.connector.ConnectorTableHandle;
import io.trino.spi.connector.ConnectorTableLayout;
import io.trino.spi.connector.ConnectorTableMetadata;
import io.trino.spi.connector.ConnectorTableProperties;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.connector.Constraint;
import io.trino.spi.connector.ConstraintApplicationResult;
import io.trino.spi.connector.LimitApplicationResult;
import io.trino.spi.connector.ProjectionApplicationResult;
import io.trino.spi.connector.RelationColumnsMetadata;
import io.trino.spi.connector.RetryMode;
import io.trino.spi.connector.RowChangeParadigm;
import io.trino.spi.connector.SaveMode;
import io.trino.spi.connector.SchemaTableName;
import io.trino.spi.connector.SystemTable;
import io.trino.spi.expression.ConnectorExpression;
import io.trino.spi.predicate.TupleDomain;
import io.trino.spi.security.TrinoPrincipal;
import io.trino.spi.statistics.ComputedStatistics;
import io.trino.spi.statistics.TableStatistics;
import io.trino.spi.type.Type;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * Schemas, tables and their views ({@code t}, {@code t$lake}, {@code t$changes}, {@code t$offsets}),
 * {@code CREATE}/{@code DROP}, pushdown, and the commit of an {@code INSERT}. Stateless: each read
 * pins its own snapshot when its splits are planned.
 */
public final class LakestreamMetadata implements ConnectorMetadata {

    private final LakestreamCatalogAccess catalog;
    private final LakestreamWrites writes;

    @Inject
    public LakestreamMetadata(LakestreamCatalogAccess catalog, LakestreamWrites writes) {
        this.catalog = requireNonNull(catalog, "catalog is null");
        this.writes = requireNonNull(writes, "writes is null");
    }

    @Override
    public List<String> listSchemaNames(ConnectorSession session) {
        return call(() -> catalog.catalog().listNamespaces().stream()
                .filter(namespace -> namespace.length() == 1)
                .map(namespace -> namespace.level(0))
                .collect(ImmutableList.toImmutableList()));
    }

    @Override
    public void createSchema(
            ConnectorSession session, String schemaName, Map<String, Object> properties, TrinoPrincipal owner) {
        call(() -> {
            catalog.catalog().createNamespace(LakestreamCatalogAccess.namespace(schemaName));
            return null;
        });
    }

    @Override
    public void dropSchema(ConnectorSession session, String schemaName, boolean cascade) {
        Namespace namespace = LakestreamCatalogAccess.namespace(schemaName);
        call(() -> {
            if (!catalog.catalog().namespaceExists(namespace)) {
                throw new TrinoException(LAKESTREAM_SCHEMA_NOT_FOUND, "Schema %s does not exist".formatted(schemaName));
            }
            List<TableIdentifier> tables = catalog.catalog().listTables(namespace);
            if (!tables.isEmpty()) {
                if (!cascade) {
                    throw new TrinoException(
                            LAKESTREAM_SCHEMA_NOT_EMPTY,
                            "Schema %s is not empty: drop its tables %s first, or use DROP SCHEMA ... CASCADE"
                                    .formatted(
                                            schemaName,
                                            tables.stream()
                                                    .map(TableIdentifier::name)
                                                    .toList()));
                }
                tables.forEach(table -> {
                    catalog.catalog().dropTable(table);
                    catalog.invalidate(new SchemaTableName(schemaName, table.name()));
                });
            }
            catalog.catalog().dropNamespace(namespace);
            return null;
        });
    }

    @Override
    public ConnectorTableHandle getTableHandle(
            ConnectorSession session,
            SchemaTableName tableName,
            Optional<ConnectorTableVersion> startVersion,
            Optional<ConnectorTableVersion> endVersion) {
        Optional<LakestreamTableName> parsed = LakestreamTableName.parse(tableName.getTableName());
        if (parsed.isEmpty()) {
            String name = tableName.getTableName();
            SchemaTableName base = new SchemaTableName(tableName.getSchemaName(), name.substring(0, name.indexOf('$')));
            if (catalog.findTable(base).isPresent()) {
                throw LakestreamTableName.unknownView(name);
            }
            return null;
        }
        LakestreamTableName name = parsed.get();
        Optional<ReadMode> mode = name.view().readMode();
        if (mode.isEmpty()) {
            // the $offsets system table of a table that does not exist
            return null;
        }
        SchemaTableName base = new SchemaTableName(tableName.getSchemaName(), name.baseName());
        // the query reads the table as it is now, in every later step: pin it in the handle. A union read takes
        // its freshness from the log and may pin a recent lake; the views of the lake pin the current one
        Optional<PinnedTable> table =
                mode.get() == ReadMode.UNION ? catalog.pinForUnionRead(base) : catalog.pinTable(base);
        if (table.isEmpty()) {
            return null;
        }
        LakestreamPin pin = new LakestreamPin(
                table.get().lakeMetadataLocation(), table.get().logVersion());
        // checked once the table is known to exist, so a missing table is reported as missing
        return LakestreamTimeTravel.apply(
                session,
                table.get().table(),
                new LakestreamTableHandle(
                        base.getSchemaName(),
                        base.getTableName(),
                        mode.get(),
                        pin,
                        LakestreamPointReads.primaryKeyFieldIds(
                                table.get().table().definition())),
                startVersion,
                endVersion);
    }

    @Override
    public Optional<SystemTable> getSystemTable(ConnectorSession session, SchemaTableName tableName) {
        // asked for every table name before getTableHandle: cheap for names without a '$'
        if (!tableName.getTableName().contains("$")) {
            return Optional.empty();
        }
        Optional<LakestreamTableName> name = LakestreamTableName.parse(tableName.getTableName());
        if (name.isEmpty() || name.get().view() != LakestreamTableName.View.OFFSETS) {
            return Optional.empty();
        }
        SchemaTableName base =
                new SchemaTableName(tableName.getSchemaName(), name.get().baseName());
        return catalog.findTable(base).map(table -> new OffsetsSystemTable(tableName, base, catalog));
    }

    @Override
    public ConnectorTableMetadata getTableMetadata(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        LakestreamTable table = catalog.loadTable(handle);
        TableDefinition definition = table.definition();
        List<ColumnMetadata> columns = LakestreamColumns.columns(definition, handle.mode()).stream()
                .map(column -> LakestreamColumns.metadata(definition, handle.mode(), column))
                .collect(ImmutableList.toImmutableList());
        Map<String, Object> properties = handle.mode() == ReadMode.UNION
                ? tableProperties(definition, table.lake().properties())
                : ImmutableMap.of();
        return new ConnectorTableMetadata(
                handle.viewName(),
                columns,
                properties,
                Optional.ofNullable(table.lake().properties().get(LakestreamTableCreation.TABLE_COMMENT_PROPERTY)));
    }

    private static Map<String, Object> tableProperties(TableDefinition definition, Map<String, String> lakeProperties) {
        ImmutableMap.Builder<String, Object> properties = ImmutableMap.builder();
        if (definition.hasPrimaryKey()) {
            properties.put(LakestreamTableProperties.PRIMARY_KEY, definition.primaryKey());
        }
        // the bucket key defaults to the primary key: show it only when it was chosen
        if (definition.hasBucketKey() && !definition.bucketKey().equals(definition.primaryKey())) {
            properties.put(LakestreamTableProperties.BUCKET_KEY, definition.bucketKey());
        }
        properties.put(LakestreamTableProperties.BUCKET_COUNT, definition.bucketCount());
        if (definition.isPartitioned()) {
            properties.put(
                    LakestreamTableProperties.PARTITIONING,
                    Partitioning.describe(definition.partitionFields(), definition.schema()));
        }
        String expiration = lakeProperties.get(PartitionExpiration.PROPERTY);
        if (expiration != null) {
            properties.put(LakestreamTableProperties.PARTITION_EXPIRATION, expiration);
        }
        // what new segments get: a table created before the property existed writes uncompressed ones
        properties.put(
                LakestreamTableProperties.LOG_COMPRESSION,
                Optional.ofNullable(lakeProperties.get(LogCompression.PROPERTY)).orElse(LogCompression.UNSET.value()));
        return properties.buildOrThrow();
    }

    @Override
    public List<SchemaTableName> listTables(ConnectorSession session, Optional<String> schemaName) {
        List<String> schemas = schemaName.map(List::of).orElseGet(() -> listSchemaNames(session));
        ImmutableList.Builder<SchemaTableName> tables = ImmutableList.builder();
        for (String schema : schemas) {
            Namespace namespace = LakestreamCatalogAccess.namespace(schema);
            call(() -> {
                if (catalog.catalog().namespaceExists(namespace)) {
                    catalog.catalog().listTables(namespace).stream()
                            .map(identifier -> new SchemaTableName(schema, identifier.name()))
                            .forEach(tables::add);
                }
                return null;
            });
        }
        return tables.build();
    }

    @Override
    public Iterator<RelationColumnsMetadata> streamRelationColumns(
            ConnectorSession session, Optional<String> schemaName, UnaryOperator<Set<SchemaTableName>> relationFilter) {
        Set<SchemaTableName> tables = relationFilter.apply(ImmutableSet.copyOf(listTables(session, schemaName)));
        List<RelationColumnsMetadata> relations = new ArrayList<>(tables.size());
        for (SchemaTableName name : tables) {
            // a table dropped since it was listed is left out
            catalog.findTable(name).ifPresent(table -> {
                TableDefinition definition = table.definition();
                relations.add(RelationColumnsMetadata.forTable(
                        name,
                        LakestreamColumns.userColumns(definition).stream()
                                .map(column -> LakestreamColumns.metadata(definition, ReadMode.UNION, column))
                                .toList()));
            });
        }
        return relations.iterator();
    }

    @Override
    public Map<String, ColumnHandle> getColumnHandles(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        TableDefinition definition = catalog.loadTable(handle).definition();
        ImmutableMap.Builder<String, ColumnHandle> columns = ImmutableMap.builder();
        for (LakestreamColumnHandle column : LakestreamColumns.columns(definition, handle.mode())) {
            columns.put(column.name(), column);
        }
        return columns.buildOrThrow();
    }

    @Override
    public ColumnMetadata getColumnMetadata(
            ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle columnHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        LakestreamColumnHandle column = (LakestreamColumnHandle) columnHandle;
        TableDefinition definition = catalog.loadTable(handle).definition();
        return LakestreamColumns.metadata(definition, handle.mode(), column);
    }

    @Override
    public void createTable(ConnectorSession session, ConnectorTableMetadata tableMetadata, SaveMode saveMode) {
        if (saveMode == SaveMode.REPLACE) {
            throw new TrinoException(LAKESTREAM_NOT_SUPPORTED, "This connector does not support replacing tables");
        }
        try {
            create(session, tableMetadata);
        } catch (TrinoException e) {
            if (saveMode == SaveMode.IGNORE && e.getErrorCode().equals(LAKESTREAM_TABLE_ALREADY_EXISTS.toErrorCode())) {
                return;
            }
            throw e;
        }
    }

    private LakestreamTable create(ConnectorSession session, ConnectorTableMetadata tableMetadata) {
        SchemaTableName name = tableMetadata.getTable();
        if (name.getTableName().contains("$")) {
            throw new TrinoException(
                    LakestreamErrorCode.LAKESTREAM_INVALID_NAME,
                    "Table name '%s' contains '$', which is reserved for the views $lake, $changes and $offsets"
                            .formatted(name.getTableName()));
        }
        TableSpec spec =
                LakestreamTableCreation.spec(tableMetadata, LakestreamSessionProperties.defaultPrimaryKey(session));
        return call(() -> {
            if (!catalog.catalog().namespaceExists(LakestreamCatalogAccess.namespace(name.getSchemaName()))) {
                throw new TrinoException(
                        LAKESTREAM_SCHEMA_NOT_FOUND, "Schema %s not found".formatted(name.getSchemaName()));
            }
            LakestreamTable created = catalog.catalog().createTable(LakestreamCatalogAccess.identifier(name), spec);
            catalog.invalidate(name);
            return created;
        });
    }

    @Override
    public Optional<Type> getSupportedType(ConnectorSession session, Map<String, Object> tableProperties, Type type) {
        return LakestreamTypes.supportedType(type);
    }

    @Override
    public ConnectorOutputTableHandle beginCreateTable(
            ConnectorSession session,
            ConnectorTableMetadata tableMetadata,
            Optional<ConnectorTableLayout> layout,
            RetryMode retryMode,
            boolean replace) {
        if (replace) {
            throw new TrinoException(LAKESTREAM_NOT_SUPPORTED, "This connector does not support replacing tables");
        }
        LakestreamWrites.requireNoRetries(retryMode, "CREATE TABLE AS");
        LakestreamTable table = create(session, tableMetadata);
        return writes.beginCreate(session.getQueryId(), tableMetadata.getTable(), table);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishCreateTable(
            ConnectorSession session,
            ConnectorOutputTableHandle tableHandle,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics) {
        writes.finishCreate(session.getQueryId(), (LakestreamInsertTableHandle) tableHandle, fragments);
        return Optional.empty();
    }

    @Override
    public void cleanupQuery(ConnectorSession session) {
        writes.cleanupQuery(session.getQueryId());
    }

    @Override
    public void dropTable(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = requireUnionView((LakestreamTableHandle) tableHandle, "DROP TABLE");
        call(() -> catalog.catalog().dropTable(LakestreamCatalogAccess.identifier(handle.baseTable())));
        catalog.invalidate(handle.baseTable());
    }

    @Override
    public void addColumn(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            ColumnMetadata column,
            ColumnPosition position) {
        alter(tableHandle, "ADD COLUMN", LakestreamSchemaChanges.addColumn(column, position));
    }

    @Override
    public void dropColumn(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column) {
        alter(tableHandle, "DROP COLUMN", new SchemaChange.DropColumn(((LakestreamColumnHandle) column).name()));
    }

    @Override
    public void renameColumn(
            ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle source, String target) {
        alter(
                tableHandle,
                "RENAME COLUMN",
                new SchemaChange.RenameColumn(((LakestreamColumnHandle) source).name(), target));
    }

    @Override
    public void setColumnType(
            ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, Type type) {
        alter(
                tableHandle,
                "SET DATA TYPE",
                LakestreamSchemaChanges.setColumnType(((LakestreamColumnHandle) column).name(), type));
    }

    @Override
    public void setColumnComment(
            ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, Optional<String> comment) {
        alter(
                tableHandle,
                "COMMENT ON COLUMN",
                new SchemaChange.SetComment(((LakestreamColumnHandle) column).name(), comment));
    }

    @Override
    public void addField(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            List<String> parentPath,
            String fieldName,
            Type type,
            boolean ignoreExisting) {
        alter(tableHandle, "ADD COLUMN", LakestreamSchemaChanges.addField(parentPath, fieldName, type, ignoreExisting));
    }

    @Override
    public void dropField(
            ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column, List<String> fieldPath) {
        List<String> path = new ArrayList<>();
        path.add(((LakestreamColumnHandle) column).name());
        path.addAll(fieldPath);
        alter(tableHandle, "DROP COLUMN", new SchemaChange.DropColumn(path));
    }

    @Override
    public void renameField(
            ConnectorSession session, ConnectorTableHandle tableHandle, List<String> fieldPath, String target) {
        alter(tableHandle, "RENAME COLUMN", new SchemaChange.RenameColumn(fieldPath, target));
    }

    @Override
    public void setFieldType(
            ConnectorSession session, ConnectorTableHandle tableHandle, List<String> fieldPath, Type type) {
        alter(tableHandle, "SET DATA TYPE", LakestreamSchemaChanges.setColumnType(fieldPath, type));
    }

    @Override
    public void dropNotNullConstraint(ConnectorSession session, ConnectorTableHandle tableHandle, ColumnHandle column) {
        alter(
                tableHandle,
                "DROP NOT NULL",
                new SchemaChange.SetNullability(((LakestreamColumnHandle) column).name(), true));
    }

    @Override
    public void setTableComment(ConnectorSession session, ConnectorTableHandle tableHandle, Optional<String> comment) {
        alter(tableHandle, "COMMENT ON TABLE", new SchemaChange.SetTableComment(comment));
    }

    @Override
    public void setTableProperties(
            ConnectorSession session, ConnectorTableHandle tableHandle, Map<String, Optional<Object>> properties) {
        List<SchemaChange> changes = new ArrayList<>();
        for (Map.Entry<String, Optional<Object>> property : properties.entrySet()) {
            // only the two string properties are read as strings: another property's value may be any type
            switch (property.getKey()) {
                case LakestreamTableProperties.PARTITION_EXPIRATION ->
                    changes.add(new SchemaChange.SetPartitionExpiration(
                            property.getValue().map(String.class::cast)));
                case LakestreamTableProperties.LOG_COMPRESSION ->
                    changes.add(new SchemaChange.SetLogCompression(
                            property.getValue().map(String.class::cast)));
                default ->
                    throw new TrinoException(
                            LakestreamErrorCode.LAKESTREAM_SCHEMA_CHANGE_UNSUPPORTED,
                            "Table property '%s' cannot be changed: the table's keys, buckets and partitioning place every row of its log and lake; only '%s' and '%s' can be set or reset (SET PROPERTIES %s = DEFAULT)"
                                    .formatted(
                                            property.getKey(),
                                            LakestreamTableProperties.PARTITION_EXPIRATION,
                                            LakestreamTableProperties.LOG_COMPRESSION,
                                            LakestreamTableProperties.PARTITION_EXPIRATION));
            }
        }
        LakestreamTableHandle handle = requireUnionView((LakestreamTableHandle) tableHandle, "SET PROPERTIES");
        alter(handle, changes);
    }

    @Override
    public void renameTable(ConnectorSession session, ConnectorTableHandle tableHandle, SchemaTableName newTableName) {
        LakestreamTableHandle handle = requireUnionView((LakestreamTableHandle) tableHandle, "RENAME TABLE");
        if (newTableName.getTableName().contains("$")) {
            throw new TrinoException(
                    LakestreamErrorCode.LAKESTREAM_INVALID_NAME,
                    "Table name '%s' contains '$', which is reserved for the views $lake, $changes and $offsets"
                            .formatted(newTableName.getTableName()));
        }
        try {
            call(() -> {
                catalog.catalog()
                        .renameTable(
                                LakestreamCatalogAccess.identifier(handle.baseTable()),
                                LakestreamCatalogAccess.identifier(newTableName));
                return null;
            });
        } finally {
            catalog.invalidate(handle.baseTable());
            catalog.invalidate(newTableName);
        }
    }

    /** One column change, committed to the table's schema; the next statement reads the new schema. */
    private void alter(ConnectorTableHandle tableHandle, String statement, SchemaChange change) {
        alter(requireUnionView((LakestreamTableHandle) tableHandle, statement), List.of(change));
    }

    /** Changes committed together in one metadata commit, or none of them. */
    private void alter(LakestreamTableHandle handle, List<SchemaChange> changes) {
        try {
            call(() -> {
                catalog.catalog().alterTable(LakestreamCatalogAccess.identifier(handle.baseTable()), changes);
                return null;
            });
        } finally {
            // cached tables hold the old schema: the next read and write pin the new one
            catalog.invalidate(handle.baseTable());
        }
    }

    @Override
    public ConnectorInsertTableHandle beginInsert(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            List<ColumnHandle> columns,
            RetryMode retryMode) {
        return writes.beginInsert(
                session.getQueryId(),
                requireUnionView((LakestreamTableHandle) tableHandle, "INSERT"),
                columns.stream().map(LakestreamColumnHandle.class::cast).toList(),
                retryMode);
    }

    @Override
    public Optional<ConnectorOutputMetadata> finishInsert(
            ConnectorSession session,
            ConnectorInsertTableHandle insertHandle,
            List<ConnectorTableHandle> sourceTableHandles,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics) {
        writes.commit(session.getQueryId(), (LakestreamInsertTableHandle) insertHandle, fragments);
        return Optional.empty();
    }

    @Override
    public RowChangeParadigm getRowChangeParadigm(ConnectorSession session, ConnectorTableHandle tableHandle) {
        // a row change is a delete of the old key and an upsert of the new row
        return RowChangeParadigm.DELETE_ROW_AND_INSERT_ROW;
    }

    @Override
    public ColumnHandle getMergeRowIdColumnHandle(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = requireUnionView((LakestreamTableHandle) tableHandle, "DELETE");
        Optional<LakestreamColumnHandle> partitionDeletesOnly =
                call(() -> LakestreamPartitionDeletes.appendOnlyRowId(catalog.loadTable(handle)));
        if (partitionDeletesOnly.isPresent()) {
            return partitionDeletesOnly.get();
        }
        return LakestreamColumns.rowId(writes.requirePrimaryKey(handle));
    }

    /** A DELETE of whole partitions of a table with a per-(partition, bucket) log is one lake commit, no merge. */
    @Override
    public Optional<ConnectorTableHandle> applyDelete(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        return call(() -> LakestreamPartitionDeletes.apply(handle, catalog.loadTable(handle))
                .map(ConnectorTableHandle.class::cast));
    }

    @Override
    public OptionalLong executeDelete(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        return call(() -> {
            try {
                // a live table from the catalog: the cache's tables are read-only snapshots of their metadata
                return LakestreamPartitionDeletes.execute(
                        handle, catalog.catalog().loadTable(LakestreamCatalogAccess.identifier(handle.baseTable())));
            } finally {
                catalog.invalidate(handle.baseTable());
            }
        });
    }

    @Override
    public ConnectorMergeTableHandle beginMerge(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            Map<Integer, Collection<ColumnHandle>> updateCaseColumns,
            RetryMode retryMode) {
        return writes.beginMerge(
                session.getQueryId(),
                requireUnionView((LakestreamTableHandle) tableHandle, "DELETE"),
                updateCaseColumns.values().stream()
                        .flatMap(Collection::stream)
                        .map(LakestreamColumnHandle.class::cast)
                        .toList(),
                retryMode);
    }

    /** Publishes the delete changes all tasks wrote as one log commit; the query id makes a retried commit a no-op. */
    @Override
    public void finishMerge(
            ConnectorSession session,
            ConnectorMergeTableHandle mergeTableHandle,
            List<ConnectorTableHandle> sourceTableHandles,
            Collection<Slice> fragments,
            Collection<ComputedStatistics> computedStatistics) {
        writes.commit(session.getQueryId(), (LakestreamMergeTableHandle) mergeTableHandle, fragments);
    }

    /** Estimates from metadata: the pinned lake snapshot's file metrics and the log tail's record count. */
    @Override
    public TableStatistics getTableStatistics(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        return call(() -> {
            LakestreamTable table = catalog.loadTable(handle);
            return LakestreamTableStatistics.of(
                    table, handle, LakestreamColumns.columns(table.definition(), handle.mode()));
        });
    }

    /** A point read on the primary key declares a single-node partitioning, so that it runs in one stage. */
    @Override
    public ConnectorTableProperties getTableProperties(ConnectorSession session, ConnectorTableHandle tableHandle) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        if (!LakestreamSessionProperties.isSingleStagePointReadsEnabled(session)) {
            return new ConnectorTableProperties();
        }
        // from the handle alone, no table load: the optimizer asks for every scan, many times per query
        return LakestreamPointReads.tableProperties(handle);
    }

    @Override
    public Optional<ConstraintApplicationResult<ConnectorTableHandle>> applyFilter(
            ConnectorSession session, ConnectorTableHandle tableHandle, Constraint constraint) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        LakestreamFilterTranslator.Split split = LakestreamFilterTranslator.split(constraint.getSummary());
        TupleDomain<LakestreamColumnHandle> newConstraint = handle.constraint().intersect(split.enforced());
        // domains on row fields (r.a) prune lake files and row groups; the engine still applies them
        TupleDomain<LakestreamColumnHandle> newPruning = handle.pruning().intersect(split.pruning());
        if (newConstraint.equals(handle.constraint()) && newPruning.equals(handle.pruning())) {
            return Optional.empty();
        }
        return Optional.of(new ConstraintApplicationResult<>(
                handle.withConstraint(newConstraint).withPruning(newPruning),
                split.remaining(),
                constraint.getExpression(),
                false));
    }

    @Override
    public Optional<ProjectionApplicationResult<ConnectorTableHandle>> applyProjection(
            ConnectorSession session,
            ConnectorTableHandle tableHandle,
            List<ConnectorExpression> projections,
            Map<String, ColumnHandle> assignments) {
        if (!LakestreamSessionProperties.isProjectionPushdownEnabled(session)) {
            return Optional.empty();
        }
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        return call(() -> LakestreamProjections.apply(
                handle, catalog.loadTable(handle).definition().schema(), projections, assignments));
    }

    @Override
    public Optional<LimitApplicationResult<ConnectorTableHandle>> applyLimit(
            ConnectorSession session, ConnectorTableHandle tableHandle, long limit) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        if (handle.limit().isPresent() && handle.limit().getAsLong() <= limit) {
            return Optional.empty();
        }
        // a hint: each split stops after the limit, the engine still applies it across splits
        return Optional.of(new LimitApplicationResult<>(handle.withLimit(limit), false, false));
    }

    private static LakestreamTableHandle requireUnionView(LakestreamTableHandle handle, String operation) {
        if (handle.mode() != ReadMode.UNION) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "%s is not supported on %s: it is a read-only view of table %s"
                            .formatted(operation, handle.viewName(), handle.baseTable()));
        }
        return handle;
    }

    @Override
    public Optional<ConnectorTableExecuteHandle> getTableHandleForExecute(
            ConnectorSession session,
            ConnectorAccessControl accessControl,
            ConnectorTableHandle tableHandle,
            String procedureName,
            Map<String, Object> executeProperties,
            RetryMode retryMode) {
        LakestreamTableHandle handle = (LakestreamTableHandle) tableHandle;
        Optional<LakestreamTableProcedure> procedure = LakestreamTableProcedure.find(procedureName);
        if (procedure.isEmpty()) {
            return Optional.empty();
        }
        if (handle.mode() != ReadMode.UNION
                || handle.logVersion().isPresent()
                || handle.asOfTimestampMillis().isPresent()) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "ALTER TABLE ... EXECUTE %s runs on the table %s itself, not on one of its views or an old version"
                            .formatted(procedure.get().procedureName(), handle.baseTable()));
        }
        return Optional.of(
                call(() -> LakestreamTableProcedures.handle(handle.baseTable(), procedure.get(), executeProperties)));
    }

    /**
     * {@code compact}, the procedure that takes a {@code WHERE}: Trino plans it as a scan of the table with the
     * {@code WHERE} pushed into it ({@link #applyFilter}; a condition the connector does not enforce exactly stays a
     * filter above the scan, which Trino refuses for a table procedure), then a writer, then {@link
     * #finishTableExecute}. The enforced constraint goes into the execute handle, and the scan reads nothing:
     * compaction reads and rewrites whole buckets from the lake files on the coordinator, with the tiering module's
     * code, as for the coordinator-only procedures (rows read here through workers would be a second implementation
     * of it).
     */
    @Override
    public BeginTableExecuteResult<ConnectorTableExecuteHandle, ConnectorTableHandle> beginTableExecute(
            ConnectorSession session,
            ConnectorTableExecuteHandle tableExecuteHandle,
            ConnectorTableHandle updatedSourceTableHandle) {
        LakestreamTableExecuteHandle handle = (LakestreamTableExecuteHandle) tableExecuteHandle;
        LakestreamTableHandle source = (LakestreamTableHandle) updatedSourceTableHandle;
        return new BeginTableExecuteResult<>(
                handle.withConstraint(source.constraint()), source.withConstraint(TupleDomain.none()));
    }

    @Override
    public Map<String, Long> finishTableExecute(
            ConnectorSession session,
            ConnectorTableExecuteHandle tableExecuteHandle,
            Collection<Slice> fragments,
            List<Object> tableExecuteState) {
        return executeTableExecute(session, tableExecuteHandle);
    }

    @Override
    public Map<String, Long> executeTableExecute(
            ConnectorSession session, ConnectorTableExecuteHandle tableExecuteHandle) {
        LakestreamTableExecuteHandle handle = (LakestreamTableExecuteHandle) tableExecuteHandle;
        SchemaTableName name = new SchemaTableName(handle.schemaName(), handle.tableName());
        return call(() -> {
            try {
                // a live table from the catalog: the cache's tables are read-only snapshots of their metadata
                return LakestreamTableProcedures.execute(
                        catalog.catalog().loadTable(LakestreamCatalogAccess.identifier(name)), handle);
            } finally {
                // the next read pins the lake the procedure left, not a cached one
                catalog.invalidate(name);
            }
        });
    }

    private static <T> T call(Supplier<T> action) {
        try {
            return action.get();
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
    }
}
