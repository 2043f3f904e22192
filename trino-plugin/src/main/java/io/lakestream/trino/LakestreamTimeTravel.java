package io.lakestream.trino;

import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_INVALID_READ;
import static io.lakestream.trino.LakestreamErrorCode.LAKESTREAM_NOT_SUPPORTED;
import static io.lakestream.trino.LakestreamErrorCode.toTrinoException;
import static io.trino.spi.type.DateTimeEncoding.unpackMillisUtc;
import static io.trino.spi.type.Timestamps.MICROSECONDS_PER_SECOND;
import static io.trino.spi.type.Timestamps.NANOSECONDS_PER_MICROSECOND;

import io.lakestream.common.LakestreamException;
import io.lakestream.plan.ReadPin;
import io.lakestream.table.LakestreamTable;
import io.lakestream.table.SchemaHistory;
import io.trino.spi.TrinoException;
import io.trino.spi.connector.ConnectorSession;
import io.trino.spi.connector.ConnectorTableVersion;
import io.trino.spi.type.BigintType;
import io.trino.spi.type.IntegerType;
import io.trino.spi.type.LongTimestamp;
import io.trino.spi.type.LongTimestampWithTimeZone;
import io.trino.spi.type.SmallintType;
import io.trino.spi.type.TimestampType;
import io.trino.spi.type.TimestampWithTimeZoneType;
import io.trino.spi.type.TinyintType;
import io.trino.spi.type.Type;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * {@code FOR VERSION AS OF <log version>} and {@code FOR TIMESTAMP AS OF <timestamp>}: the read pins
 * that log version (or the newest one committed at or before the time) and the lake snapshot that
 * goes with it, and the schema current at that version ({@link SchemaHistory}): the columns, names and types of
 * that time.
 */
final class LakestreamTimeTravel {
    private LakestreamTimeTravel() {}

    /** The handle reading as of {@code endVersion}; checked against the table so a bad version fails now. */
    static LakestreamTableHandle apply(
            ConnectorSession session,
            LakestreamTable table,
            LakestreamTableHandle handle,
            Optional<ConnectorTableVersion> startVersion,
            Optional<ConnectorTableVersion> endVersion) {
        if (startVersion.isPresent()) {
            throw new TrinoException(
                    LAKESTREAM_NOT_SUPPORTED,
                    "Reading the changes between two versions of %s is not supported; use FOR VERSION AS OF or FOR TIMESTAMP AS OF"
                            .formatted(handle.baseTable()));
        }
        if (endVersion.isEmpty()) {
            return handle;
        }
        ConnectorTableVersion version = endVersion.get();
        LakestreamTableHandle result = switch (version.getPointerType()) {
            case TARGET_ID -> handle.withTimeTravel(OptionalLong.of(logVersion(handle, version)), OptionalLong.empty());
            case TEMPORAL ->
                handle.withTimeTravel(OptionalLong.empty(), OptionalLong.of(epochMillis(session, version)));
        };
        ReadPin pin;
        try {
            pin = ReadPin.resolve(table, result.readOptions());
        } catch (LakestreamException e) {
            throw toTrinoException(e);
        }
        // the columns of that version's time: the handle carries the schema so that every later step reads with it
        Optional<Integer> schemaId =
                SchemaHistory.schemaIdAt(table.lake().properties(), pin.log().version());
        if (schemaId.isPresent() && schemaId.get() != table.lake().schema().schemaId()) {
            return result.withSchemaId(schemaId.get());
        }
        return result;
    }

    private static long logVersion(LakestreamTableHandle handle, ConnectorTableVersion version) {
        Type type = version.getVersionType();
        if (type instanceof BigintType
                || type instanceof IntegerType
                || type instanceof SmallintType
                || type instanceof TinyintType) {
            return (long) version.getVersion();
        }
        throw new TrinoException(
                LAKESTREAM_INVALID_READ,
                "FOR VERSION AS OF on %s takes a log version number (an integer), not a value of type %s"
                        .formatted(handle.baseTable(), type.getDisplayName()));
    }

    private static long epochMillis(ConnectorSession session, ConnectorTableVersion version) {
        Type type = version.getVersionType();
        Object value = version.getVersion();
        if (type instanceof TimestampWithTimeZoneType withZone) {
            return withZone.isShort()
                    ? unpackMillisUtc((long) value)
                    : ((LongTimestampWithTimeZone) value).getEpochMillis();
        }
        if (type instanceof TimestampType timestamp) {
            // a timestamp without a zone is a time in the session's zone
            long epochMicros = timestamp.isShort() ? (long) value : ((LongTimestamp) value).getEpochMicros();
            LocalDateTime local = LocalDateTime.ofEpochSecond(
                    Math.floorDiv(epochMicros, MICROSECONDS_PER_SECOND),
                    (int) (Math.floorMod(epochMicros, MICROSECONDS_PER_SECOND) * NANOSECONDS_PER_MICROSECOND),
                    ZoneOffset.UTC);
            return local.atZone(session.getTimeZoneKey().getZoneId())
                    .toInstant()
                    .toEpochMilli();
        }
        throw new TrinoException(
                LAKESTREAM_INVALID_READ,
                "FOR TIMESTAMP AS OF takes a timestamp or a timestamp with time zone, not a value of type "
                        + type.getDisplayName());
    }
}
