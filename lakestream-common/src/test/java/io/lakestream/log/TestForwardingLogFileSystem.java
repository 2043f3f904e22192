package io.lakestream.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every operation of {@link LogFileSystem}, the ones with a default included, is forwarded: a decorator
 * over a local file system must still fsync directories and write through its channels.
 */
class TestForwardingLogFileSystem {
    @Test
    void forwardsEveryOperation() {
        List<String> notForwarded = Arrays.stream(LogFileSystem.class.getMethods())
                .filter(method -> !Modifier.isStatic(method.getModifiers()))
                .filter(method -> !declaredBy(ForwardingLogFileSystem.class, method))
                .map(Method::getName)
                .toList();
        assertThat(notForwarded)
                .as("LogFileSystem methods ForwardingLogFileSystem does not forward")
                .isEmpty();
    }

    private static boolean declaredBy(Class<?> type, Method method) {
        try {
            type.getDeclaredMethod(method.getName(), method.getParameterTypes());
            return true;
        } catch (NoSuchMethodException e) {
            return false;
        }
    }
}
