package io.lakestream.testing;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A JVM like the test's (its class path and test JVM flags) that has a managed identity, as a process on App
 * Service has one: {@link ManagedIdentityEndpoint#environment()} in its environment and no other Azure identity
 * variable, and a server certificate as its default trust. azure-identity reads a managed identity's variables
 * from the process environment only, so a test that needs one runs its scenario in such a process.
 *
 * @param exitCode the process's exit code
 * @param output its standard output
 * @param errors its standard error
 */
public record ManagedIdentityProcess(int exitCode, String output, String errors) {
    /** Runs {@code main} with {@code arguments} (and {@code -D} options), waits at most 3 minutes. */
    public static ManagedIdentityProcess run(
            Path directory,
            ManagedIdentityEndpoint identity,
            TestingCertificate trusted,
            List<String> systemProperties,
            Class<?> main,
            String... arguments)
            throws Exception {
        Files.createDirectories(directory);
        String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java");
        List<String> command = new ArrayList<>();
        command.add(java);
        command.add("-Xmx512m");
        command.addAll(Arrays.asList(
                System.getProperty("lakestream.test.jvm.flags", "").trim().split("\\s+")));
        command.addAll(trusted.trustStoreOptions());
        command.addAll(systemProperties);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(List.of(arguments));
        command.removeIf(String::isEmpty);
        Path out = directory.resolve("out.log");
        Path err = directory.resolve("err.log");
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        Map<String, String> environment = builder.environment();
        environment
                .keySet()
                .removeIf(name -> name.startsWith("AZURE_")
                        || name.startsWith("IDENTITY_")
                        || name.startsWith("MSI_")
                        || name.startsWith("IMDS_"));
        environment.putAll(identity.environment());
        Process process = builder.start();
        try {
            if (!process.waitFor(3, TimeUnit.MINUTES)) {
                throw new AssertionError("%s did not finish within 3 minutes".formatted(main.getSimpleName()));
            }
        } finally {
            process.destroyForcibly().waitFor();
        }
        return new ManagedIdentityProcess(
                process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
    }

    /** What the process printed, for a failure message. */
    public String describe() {
        return "exit %s; output:%n%s%nerrors:%n%s".formatted(exitCode, output, errors);
    }
}
