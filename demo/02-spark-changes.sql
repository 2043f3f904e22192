-- Step 3 (Spark SQL), after a tiering pass: fresh changes that only the log holds.
-- Upserts: Ada moved, Grace's balance changed, a new customer arrived.
INSERT INTO lakestream.shop.customers VALUES
    (1, 'Ada', 'Cambridge', 120.00),
    (2, 'Grace', 'New York', 95.75),
    (6, 'Alan', 'Manchester', 7.00);

INSERT INTO lakestream.shop.orders VALUES
    (103, 6, 12.50, TIMESTAMP '2026-11-29 10:00:00');
