package io.lakestream.table;

/** Iceberg table properties and snapshot summary keys that make an Iceberg table a Lakestream table. */
public final class LakestreamProperties {
    /** Marks the table as a Lakestream table and records the version of the table layout. */
    public static final String TABLE_FORMAT_VERSION = "lakestream.table-format-version";

    public static final String CURRENT_TABLE_FORMAT_VERSION = "1";
    public static final String PRIMARY_KEY = "lakestream.primary-key";
    public static final String BUCKET_NUM = "lakestream.bucket.num";
    public static final String BUCKET_KEY = "lakestream.bucket.key";
    public static final String LOG_PATH = "lakestream.log.path";
    /** When the table was created (epoch millis): time travel to an earlier time is an error. */
    public static final String CREATED_AT_MILLIS = "lakestream.created-at-millis";

    /** The table comment (Iceberg's and the engines' property name). */
    public static final String COMMENT = "comment";

    /**
     * The id of the Iceberg schema Lakestream's last {@code ALTER TABLE} committed (in the same metadata commit).
     * A current schema with another id was changed outside Lakestream (docs/format.md, schema evolution).
     */
    public static final String SCHEMA_ID = "lakestream.schema-id";

    /** Snapshot summary: JSON object bucket -> next log offset not yet in the lake. */
    public static final String SUMMARY_LOG_OFFSETS = "lakestream.log-offsets";
    /** Snapshot summary: the log commit version tiering read up to. */
    public static final String SUMMARY_LOG_VERSION = "lakestream.log-version";

    /** Snapshot summary key: a partition delete's id, also named by its log marker (docs/writes.md). */
    public static final String SUMMARY_PARTITION_DELETE_ID = "lakestream.partition-delete-id";

    /**
     * Snapshot summary key of a delete of whole partitions: the log version whose ends became the partitions' lake
     * offsets. Time travel to an earlier version must not read the snapshot (or its descendants), a later one must not
     * read its ancestors (docs/writes.md "Deleting whole partitions").
     */
    public static final String SUMMARY_PARTITION_DELETE_VERSION = "lakestream.partition-delete-log-version";

    /**
     * Snapshot summary key of partition expiry's lake commit: the log version it was planned on, at or after the log
     * commit that removed the partitions. Time travel treats it like {@link #SUMMARY_PARTITION_DELETE_VERSION}: an
     * earlier version must not read the snapshot (it lacks the partitions' files and offsets while that version's log
     * still has them), a later one must not read its ancestors (docs/tiering.md "Partition expiry").
     */
    public static final String SUMMARY_EXPIRY_LOG_VERSION = "lakestream.expiry-log-version";

    /** Hidden identity-partition column that carries the bucket of a multi-column bucket key. */
    public static final String BUCKET_COLUMN = "__bucket";

    /** Directory name of the log under the table location when {@link #LOG_PATH} is not set. */
    public static final String DEFAULT_LOG_DIRECTORY = "log";

    private LakestreamProperties() {}
}
