package io.lakestream.table;

import static io.lakestream.common.LakestreamError.INVALID_TABLE_DEFINITION;

import io.lakestream.common.LakestreamException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.apache.arrow.vector.compression.CompressionUtil;

/**
 * The table property {@link #PROPERTY}: how new log segments compress their record batches (Arrow IPC body
 * compression, one codec per batch; docs/format.md "Segment compression"). Readers never need it: every batch names
 * its own codec, so a log may hold segments of both kinds.
 */
public enum LogCompression {
    /** Batches as Arrow writes them, byte for byte what every segment was before this property existed. */
    NONE(CompressionUtil.CodecType.NO_COMPRESSION),
    /**
     * Zstandard (native zstd-jni at level 2, or the pure-Java codec where the native library cannot load:
     * {@code SegmentCodecs}), as Fluss compresses its Arrow log batches by default.
     */
    ZSTD(CompressionUtil.CodecType.ZSTD);

    public static final String PROPERTY = "lakestream.log.compression";

    /**
     * What {@code CREATE TABLE} stores when the statement does not choose: zstd, which issue 21's partition benchmark
     * needs (the log tail in a fifth of the bytes) and which the native codec writes within log-append's goal
     * (docs/decisions.md, "compressing log segments"). Tables created while the default was {@code none} stored it and
     * keep it.
     */
    public static final LogCompression DEFAULT = ZSTD;

    /**
     * What a table without the property writes: tables created before it existed keep writing uncompressed
     * segments, so readers of those versions can still read every segment of them.
     */
    public static final LogCompression UNSET = NONE;

    private final CompressionUtil.CodecType codecType;

    LogCompression(CompressionUtil.CodecType codecType) {
        this.codecType = codecType;
    }

    /** The codec Arrow writes a segment's batches with. */
    public CompressionUtil.CodecType codecType() {
        return codecType;
    }

    /** The property's value for this compression. */
    public String value() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** The compression a table's Iceberg properties choose; {@code INVALID_TABLE_DEFINITION} for a value not known. */
    public static LogCompression of(String table, Map<String, String> properties) {
        return Optional.ofNullable(properties.get(PROPERTY))
                .map(value -> parse(table, value))
                .orElse(UNSET);
    }

    /** {@code zstd} or {@code none}, in any case; {@code INVALID_TABLE_DEFINITION} otherwise. */
    public static LogCompression parse(String table, String value) {
        String name = value.trim().toUpperCase(Locale.ROOT);
        for (LogCompression compression : values()) {
            if (compression.name().equals(name)) {
                return compression;
            }
        }
        throw new LakestreamException(
                INVALID_TABLE_DEFINITION,
                "Table %s: %s = '%s' is not a log compression; use one of %s"
                        .formatted(
                                table,
                                PROPERTY,
                                value,
                                Arrays.stream(values())
                                        .map(compression -> "'" + compression.value() + "'")
                                        .toList()));
    }
}
