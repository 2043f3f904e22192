package io.lakestream.trino;

import static org.assertj.core.api.Assertions.assertThat;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import io.trino.spi.ErrorType;
import io.trino.spi.TrinoException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

final class TestLakestreamErrorCode {
    @Test
    void codesAreUniqueAndInOneRange() {
        assertThat(Arrays.stream(LakestreamErrorCode.values())
                        .map(code -> code.toErrorCode().getCode())
                        .distinct()
                        .count())
                .isEqualTo(LakestreamErrorCode.values().length);
        for (LakestreamErrorCode code : LakestreamErrorCode.values()) {
            assertThat(code.toErrorCode().getCode() & 0xFFFF_0000).isEqualTo(0x4C53_0000);
            assertThat(code.toErrorCode().getName()).isEqualTo(code.name());
        }
    }

    @Test
    void everyLakestreamErrorKeepsItsKind() {
        for (LakestreamError error : LakestreamError.values()) {
            ErrorType expected = switch (error.kind()) {
                case USER -> ErrorType.USER_ERROR;
                case EXTERNAL -> ErrorType.EXTERNAL;
                case INTERNAL -> ErrorType.INTERNAL_ERROR;
            };
            assertThat(LakestreamErrorCode.of(error).toErrorCode().getType())
                    .as("%s", error)
                    .isEqualTo(expected);
        }
    }

    @Test
    void trinoExceptionKeepsTheActionableMessage() {
        TrinoException exception = LakestreamErrorCode.toTrinoException(
                new LakestreamException(LakestreamError.LOG_RANGE_REMOVED, "read with read mode 'lake'"));
        assertThat(exception.getErrorCode()).isEqualTo(LakestreamErrorCode.LAKESTREAM_LOG_RANGE_REMOVED.toErrorCode());
        assertThat(exception.getMessage()).isEqualTo("[LOG_RANGE_REMOVED] read with read mode 'lake'");
    }
}
