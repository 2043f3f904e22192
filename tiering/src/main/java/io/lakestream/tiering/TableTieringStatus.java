package io.lakestream.tiering;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * The service's state for one table.
 *
 * @param stopped tiering of the table stopped until {@link TieringService#resume}
 * @param consecutiveFailures failed rounds since the last successful one
 * @param retryAfterMillis no round before this time (back-off after a failure)
 * @param lastError the last failure's message
 * @param lastResult the last successful round
 */
public record TableTieringStatus(
        boolean stopped,
        int consecutiveFailures,
        long retryAfterMillis,
        Optional<String> lastError,
        Optional<TieringResult> lastResult) {
    public static final TableTieringStatus ACTIVE =
            new TableTieringStatus(false, 0, 0, Optional.empty(), Optional.empty());

    public TableTieringStatus {
        requireNonNull(lastError, "lastError is null");
        requireNonNull(lastResult, "lastResult is null");
    }

    TableTieringStatus withResult(TieringResult result) {
        return new TableTieringStatus(false, 0, 0, Optional.empty(), Optional.of(result));
    }
}
