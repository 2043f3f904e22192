package io.lakestream.sqltests.soak;

/**
 * One way of reading a soak table: an engine and a layer. {@code union} is Lakestream's union read,
 * {@code lake} its lake-only read ({@code t$lake}), {@code stock} Trino's stock Iceberg connector on
 * the lake.
 */
record View(String engine, String layer, String table) {
    static final String TRINO = "trino";
    static final String SPARK = "spark";
    static final String UNION = "union";
    static final String LAKE = "lake";
    static final String STOCK = "stock";

    View {
        if (layer.equals(STOCK) && !engine.equals(TRINO)) {
            throw new IllegalArgumentException("the stock Iceberg connector is read through Trino");
        }
    }

    String sql() {
        String columns = switch (table) {
            case SoakTables.EVENTS -> "id, tag";
            case SoakTables.ITEMS -> "k, v";
            case SoakTables.COUNTERS -> "id, n";
            default -> throw new IllegalArgumentException(table);
        };
        String lakeTable = engine.equals(TRINO) ? "\"" + table + "$lake\"" : "`" + table + "$lake`";
        String from = switch (layer) {
            case UNION -> SoakTables.name("lakestream", table);
            case LAKE -> "lakestream." + SoakTables.SCHEMA + "." + lakeTable;
            case STOCK -> SoakTables.name("iceberg", table);
            default -> throw new IllegalArgumentException(layer);
        };
        return "SELECT " + columns + " FROM " + from;
    }

    /** Whether the view shows the log tail: only then must an acknowledged commit be visible at once. */
    boolean includesLog() {
        return layer.equals(UNION);
    }

    @Override
    public String toString() {
        return engine + " " + layer + " " + table;
    }
}
