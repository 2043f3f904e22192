package io.lakestream.write;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A value for a string column that is already encoded as UTF-8, such as an engine's own string bytes
 * (Spark's {@code UTF8String}): the writer stores the bytes as they are, without decoding them into a
 * Java {@code String} and encoding it back. The writer keeps the array until the row is written;
 * the caller must not change it before.
 *
 * @param bytes the UTF-8 bytes
 */
public record Utf8Value(byte[] bytes) {
    public Utf8Value {
        requireNonNull(bytes, "bytes is null");
    }

    /** Equal to another {@code Utf8Value} with the same bytes (a record compares arrays by identity). */
    @Override
    public boolean equals(Object other) {
        return other instanceof Utf8Value that && Arrays.equals(bytes, that.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }

    @Override
    public String toString() {
        return new String(bytes, StandardCharsets.UTF_8);
    }
}
