package io.lakestream.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lakestream.common.LakestreamError;
import io.lakestream.common.LakestreamException;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;

/** Assertions on Lakestream errors: the code and the message a user sees. */
public final class LakestreamAssertions {
    private LakestreamAssertions() {}

    public static void assertLakestreamError(ThrowingCallable call, LakestreamError error, String message) {
        assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(error))
                .hasMessageContaining(message);
    }

    /** The error's code, and the assertion on the thrown exception for checks of its message. */
    public static AbstractThrowableAssert<?, ? extends Throwable> assertLakestreamError(
            ThrowingCallable call, LakestreamError error) {
        return assertThatThrownBy(call)
                .isInstanceOfSatisfying(
                        LakestreamException.class, e -> assertThat(e.error()).isEqualTo(error));
    }
}
