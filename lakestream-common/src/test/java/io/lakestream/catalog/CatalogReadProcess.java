package io.lakestream.catalog;

import java.nio.file.Path;
import org.apache.iceberg.catalog.TableIdentifier;

/** A separate JVM that loads table {@code s.t} of a warehouse through Lakestream's catalog and prints its property n. */
public final class CatalogReadProcess {
    private CatalogReadProcess() {}

    public static void main(String[] args) throws Exception {
        try (LakestreamCatalog catalog = LakestreamCatalog.open(CatalogConfig.embedded(Path.of(args[0])))) {
            System.out.println(catalog.icebergCatalog()
                    .loadTable(TableIdentifier.of("s", "t"))
                    .properties()
                    .get("n"));
        }
    }
}
