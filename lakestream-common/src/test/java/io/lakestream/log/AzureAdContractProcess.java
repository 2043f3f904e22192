package io.lakestream.log;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import java.io.PrintWriter;
import java.util.List;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

/**
 * Runs the conditional-create part of {@link AzureAdLogFileSystemContract} ({@link #TESTS}) with the JUnit launcher
 * in this JVM (whose environment holds the identity azure-identity finds) and prints {@code SUCCEEDED <n>}; exits 1
 * with JUnit's failure report otherwise. The contract's data-path tests (a 20 MiB segment, listing) are left to
 * {@code TestAzureLogFileSystem}: they authenticate the same way, and would double this run's time.
 */
final class AzureAdContractProcess {
    static final String SUCCEEDED = "SUCCEEDED ";
    static final List<String> TESTS = List.of(
            "conditionalCreatePublishesOnceAndNeverReplaces",
            "racingWritersHaveExactlyOneWinnerPerVersion",
            "aCommitWhoseResponseWasLostIsPublishedOnce");

    private AzureAdContractProcess() {}

    public static void main(String[] args) {
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(TESTS.stream()
                        .map(test -> selectMethod(AzureAdLogFileSystemContract.class, test))
                        .toList())
                .build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        TestExecutionSummary summary = listener.getSummary();
        summary.printTo(new PrintWriter(System.out, true));
        if (summary.getTotalFailureCount() > 0 || summary.getTestsSucceededCount() == 0) {
            summary.printFailuresTo(new PrintWriter(System.out, true), 50);
            System.exit(1);
        }
        System.out.println(SUCCEEDED + summary.getTestsSucceededCount());
        System.out.flush();
        System.exit(0);
    }
}
