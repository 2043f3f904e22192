package io.lakestream.testing;

import java.util.List;

/** Reading back what the command line printed with {@link io.lakestream.common.TextTable}, for tests of the commands. */
public final class PrintedTables {
    private PrintedTables() {}

    /**
     * The data rows of the printed result tables whose first column is a number, each as its cells separated by one
     * space (e.g. {@code "2 bob"}), in printed order.
     */
    public static List<String> numberedRows(String printed) {
        return printed.lines()
                .filter(line -> line.matches("^\\|?\\s*\\d+\\s*\\|.*"))
                .map(line -> String.join(" ", line.replace("|", " ").trim().split("\\s+")))
                .toList();
    }
}
