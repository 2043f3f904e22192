package io.lakestream.trino;

import static io.trino.spi.session.PropertyMetadata.booleanProperty;
import static io.trino.spi.session.PropertyMetadata.enumProperty;

import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.session.PropertyMetadata;
import java.util.List;

/** Session properties of a Lakestream catalog ({@code SET SESSION lakestream.<name> = ...}). */
public final class LakestreamSessionProperties {
    /** Whether lake-only splits without deletes are read by Trino's Parquet reader (the fast path). */
    public static final String NATIVE_PARQUET_READER_ENABLED = "native_parquet_reader_enabled";

    /** Whether a merge with a log tail takes the lake files' keys from the worker's key cache ({@link LakeKeyCache}). */
    public static final String LAKE_KEY_CACHE_ENABLED = "lake_key_cache_enabled";

    /** The primary key of a {@code CREATE TABLE} that names none ({@link DefaultPrimaryKey}). */
    public static final String DEFAULT_PRIMARY_KEY = "default_primary_key";
    /** Whether dereferences of row columns ({@code r.a}) are pushed into the scan ({@link LakestreamProjections}). */
    public static final String PROJECTION_PUSHDOWN_ENABLED = "projection_pushdown_enabled";
    /** Whether a point read on the primary key runs in one stage ({@link LakestreamPointReads}). */
    public static final String SINGLE_STAGE_POINT_READS_ENABLED = "single_stage_point_reads_enabled";

    /** What a {@code CREATE TABLE} without a {@code primary_key} property makes. */
    public enum DefaultPrimaryKey {
        /** An append-only table. */
        NONE,
        /**
         * A primary-key table keyed by its first column, when that column's type can be a key (else an
         * append-only table); the column becomes NOT NULL. Lets a workload written for append-only tables,
         * such as Trino's shared connector tests, run on primary-key tables.
         */
        FIRST_COLUMN
    }

    public static final List<PropertyMetadata<?>> PROPERTIES = List.of(
            booleanProperty(
                    NATIVE_PARQUET_READER_ENABLED,
                    "Read lake files of splits without a log tail and without deletes with Trino's Parquet reader",
                    true,
                    false),
            booleanProperty(
                    LAKE_KEY_CACHE_ENABLED,
                    "Merge lake files with the log tail by the keys the worker keeps (lakestream.lake-key-cache.max-size)",
                    true,
                    false),
            enumProperty(
                    DEFAULT_PRIMARY_KEY,
                    "Primary key of a CREATE TABLE without primary_key: NONE (an append-only table) or FIRST_COLUMN"
                            + " (the first column, when its type can be a key)",
                    DefaultPrimaryKey.class,
                    DefaultPrimaryKey.NONE,
                    false),
            booleanProperty(
                    PROJECTION_PUSHDOWN_ENABLED,
                    "Read only the fields of row columns a query dereferences (r.a), not whole rows",
                    true,
                    false),
            booleanProperty(
                    SINGLE_STAGE_POINT_READS_ENABLED,
                    "Plan a union read that fixes every primary-key column to one value as one stage on one node",
                    true,
                    false));

    private LakestreamSessionProperties() {}

    public static boolean isLakeKeyCacheEnabled(ConnectorSession session) {
        return session.getProperty(LAKE_KEY_CACHE_ENABLED, Boolean.class);
    }

    public static DefaultPrimaryKey defaultPrimaryKey(ConnectorSession session) {
        return session.getProperty(DEFAULT_PRIMARY_KEY, DefaultPrimaryKey.class);
    }

    public static boolean isProjectionPushdownEnabled(ConnectorSession session) {
        return session.getProperty(PROJECTION_PUSHDOWN_ENABLED, Boolean.class);
    }

    public static boolean isSingleStagePointReadsEnabled(ConnectorSession session) {
        return session.getProperty(SINGLE_STAGE_POINT_READS_ENABLED, Boolean.class);
    }

    public static boolean isNativeParquetReaderEnabled(ConnectorSession session) {
        return session.getProperty(NATIVE_PARQUET_READER_ENABLED, Boolean.class);
    }
}
