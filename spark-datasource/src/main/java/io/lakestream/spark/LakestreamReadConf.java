package io.lakestream.spark;

import static io.lakestream.common.LakestreamError.INVALID_READ_OPTIONS;
import static java.util.Objects.requireNonNull;

import io.lakestream.common.LakestreamException;
import io.lakestream.merge.MergeConfig;
import io.lakestream.plan.ReadMode;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The settings of one read, each resolved from the read option, then the Spark session conf, then
 * the table property, then the default:
 *
 * <ul>
 *   <li>{@code read-mode}: {@code union} (default) or {@code lake}; session conf {@code
 *       spark.lakestream.read-mode}, table property {@code read-mode}. The changelog is the table
 *       {@code t$changes} (its schema differs), or {@code format("lakestream")} with {@code
 *       read-mode=changes}.
 *   <li>{@code merge.max-index-rows}: most log changes a primary-key merge indexes at once;
 *       session conf {@code spark.lakestream.merge.max-index-rows}, table property {@code
 *       merge.max-index-rows}.
 *   <li>{@code changes-after-version} (read option only): for the changelog, only changes committed
 *       after this log version.
 * </ul>
 *
 * @param mode the read mode
 * @param merge the merge limits
 * @param changesAfterVersion for the changelog, the version after which changes are returned
 */
record LakestreamReadConf(ReadMode mode, MergeConfig merge, OptionalLong changesAfterVersion) {
    static final String READ_MODE = "read-mode";
    static final String MAX_INDEX_ROWS = "merge.max-index-rows";
    static final String CHANGES_AFTER_VERSION = "changes-after-version";
    static final String SESSION_PREFIX = "spark.lakestream.";

    LakestreamReadConf {
        requireNonNull(mode, "mode is null");
        requireNonNull(merge, "merge is null");
        requireNonNull(changesAfterVersion, "changesAfterVersion is null");
    }

    /**
     * @param options the read options (case-insensitive keys, lower-cased)
     * @param session the Spark session conf
     * @param tableProperties the table's properties
     */
    static LakestreamReadConf resolve(
            Map<String, String> options,
            Function<String, Optional<String>> session,
            Map<String, String> tableProperties) {
        Resolver resolver = new Resolver(options, session, tableProperties);
        ReadMode mode = resolver.get(READ_MODE).map(ReadMode::parse).orElse(ReadMode.UNION);
        MergeConfig merge = resolver.get(MAX_INDEX_ROWS)
                .map(value -> new MergeConfig(positiveLong(MAX_INDEX_ROWS, value)))
                .orElse(MergeConfig.DEFAULT);
        String changesAfter = options.get(CHANGES_AFTER_VERSION);
        OptionalLong changesAfterVersion = changesAfter == null
                ? OptionalLong.empty()
                : OptionalLong.of(nonNegativeLong(CHANGES_AFTER_VERSION, changesAfter));
        return new LakestreamReadConf(mode, merge, changesAfterVersion);
    }

    private record Resolver(
            Map<String, String> options, Function<String, Optional<String>> session, Map<String, String> table) {
        Optional<String> get(String key) {
            String option = options.get(key.toLowerCase(Locale.ROOT));
            if (option != null) {
                return Optional.of(option);
            }
            Optional<String> fromSession = session.apply(SESSION_PREFIX + key);
            if (fromSession.isPresent()) {
                return fromSession;
            }
            return Optional.ofNullable(table.get(key));
        }
    }

    private static long positiveLong(String key, String value) {
        long result = nonNegativeLong(key, value);
        if (result < 1) {
            throw invalid(key, value, "a number of at least 1");
        }
        return result;
    }

    private static long nonNegativeLong(String key, String value) {
        try {
            long result = Long.parseLong(value.trim());
            if (result < 0) {
                throw invalid(key, value, "a whole number of at least 0");
            }
            return result;
        } catch (NumberFormatException e) {
            throw invalid(key, value, "a whole number");
        }
    }

    private static LakestreamException invalid(String key, String value, String expected) {
        return new LakestreamException(
                INVALID_READ_OPTIONS, "Read option '%s' must be %s, but was '%s'".formatted(key, expected, value));
    }
}
