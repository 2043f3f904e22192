package io.lakestream.log;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import org.apache.arrow.vector.compression.CompressionCodec;
import org.apache.arrow.vector.compression.CompressionUtil;
import org.apache.arrow.vector.compression.NoCompressionCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The codecs of log segments (docs/format.md "Segment compression"): uncompressed, or ZSTD through zstd-jni's native
 * library, or through aircompressor's pure-Java Zstandard where the native library cannot load. Both make standard
 * frames, so a segment written by either reads with either.
 */
public final class SegmentCodecs {
    /**
     * The level of native zstd. Measured on 8192-row batches of both benchmarks' columns: level 2 makes segments as
     * small as 3 (zstd's default, and about the pure-Java codec's one level) at about 1.5-2x its speed; level 1 is
     * barely faster but makes the partition benchmark's tail 8% larger, which is what issue 21's bytes goal counts;
     * negative levels are faster still and 1.3-2x larger (docs/decisions.md, "compressing log segments").
     */
    static final int ZSTD_LEVEL = 2;

    /**
     * A system property choosing the Zstandard implementation: {@code native} (the default: zstd-jni, falling back to
     * pure Java if its library cannot load) or {@code java} (aircompressor only, e.g. where loading native code is not
     * wanted, or to compare the two).
     */
    public static final String IMPLEMENTATION_PROPERTY = "lakestream.log.zstd";

    private static final Logger log = LoggerFactory.getLogger(SegmentCodecs.class);

    private SegmentCodecs() {}

    /**
     * A new ZSTD codec, native if the library loads (checked once per class loader); its owner closes it. The
     * fallback is logged once: segments stay the same format, only slower to write and read.
     */
    public static ZstdSegmentCodec zstd() {
        return new ZstdSegmentCodec(NativeLibrary.AVAILABLE ? new NativeZstdFrames(ZSTD_LEVEL) : new JavaZstdFrames());
    }

    /** The pure-Java ZSTD codec, whatever the native library does: for tests of both codecs' segments. */
    static ZstdSegmentCodec javaZstd() {
        return new ZstdSegmentCodec(new JavaZstdFrames());
    }

    /** The native ZSTD codec; fails if zstd-jni's library does not load. */
    static ZstdSegmentCodec nativeZstd() {
        return new ZstdSegmentCodec(new NativeZstdFrames(ZSTD_LEVEL));
    }

    /** Whether {@link #zstd()} gives the native codec. */
    public static boolean isNativeZstd() {
        return NativeLibrary.AVAILABLE;
    }

    /**
     * What an Arrow writer takes: a factory that gives it {@code codec}, the writer's own, for that codec's type (Arrow
     * asks once per file). The writer closes the codec, not Arrow.
     */
    public static CompressionCodec.Factory writingWith(CompressionCodec codec) {
        requireNonNull(codec, "codec is null");
        return new CompressionCodec.Factory() {
            @Override
            public CompressionCodec createCodec(CompressionUtil.CodecType codecType) {
                if (codecType == CompressionUtil.CodecType.NO_COMPRESSION) {
                    return NoCompressionCodec.INSTANCE;
                }
                if (codecType != codec.getCodecType()) {
                    throw new IllegalArgumentException(
                            "this writer compresses with %s, not %s".formatted(codec.getCodecType(), codecType));
                }
                return codec;
            }

            @Override
            public CompressionCodec createCodec(CompressionUtil.CodecType codecType, int compressionLevel) {
                return createCodec(codecType);
            }
        };
    }

    /** Loads zstd-jni's native library once: its class may be missing from an engine, or its library fail to load. */
    private static final class NativeLibrary {
        static final boolean AVAILABLE = load();

        private static boolean load() {
            String implementation =
                    System.getProperty(IMPLEMENTATION_PROPERTY, "native").trim().toLowerCase(Locale.ROOT);
            if (implementation.equals("java")) {
                log.info("Log segments use the pure-Java zstd codec ({}=java)", IMPLEMENTATION_PROPERTY);
                return false;
            }
            try {
                com.github.luben.zstd.util.Native.load();
                return true;
            } catch (LinkageError e) {
                // NoClassDefFoundError (zstd-jni not on the class path) or UnsatisfiedLinkError (no library for this
                // platform, or a temporary directory it cannot load from)
                log.warn(
                        "zstd-jni's native library did not load ({}): log segments are compressed and read with the"
                                + " slower pure-Java zstd codec, in the same format",
                        e.toString());
                return false;
            }
        }
    }
}
