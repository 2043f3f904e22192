-- Step 1 (Spark SQL): two Lakestream tables, written through the change log.
CREATE NAMESPACE IF NOT EXISTS lakestream.shop;

-- A primary-key table: an INSERT of an existing id is an upsert.
CREATE TABLE lakestream.shop.customers (
    id BIGINT NOT NULL,
    name STRING,
    city STRING,
    balance DECIMAL(10, 2))
USING lakestream
TBLPROPERTIES ('primary-key' = 'id', 'bucket.num' = '4');

-- An append-only table.
CREATE TABLE lakestream.shop.orders (
    order_id BIGINT NOT NULL,
    customer_id BIGINT,
    amount DECIMAL(10, 2),
    placed_at TIMESTAMP)
USING lakestream
TBLPROPERTIES ('bucket.num' = '2');

INSERT INTO lakestream.shop.customers VALUES
    (1, 'Ada', 'London', 120.00),
    (2, 'Grace', 'New York', 80.50),
    (3, 'Edsger', 'Nuenen', 10.00),
    (4, 'Barbara', 'Boston', 300.25),
    (5, 'Donald', 'Stanford', 42.00);

INSERT INTO lakestream.shop.orders VALUES
    (100, 1, 19.99, TIMESTAMP '2026-11-29 09:00:00'),
    (101, 2, 5.00, TIMESTAMP '2026-11-29 09:05:00'),
    (102, 4, 250.00, TIMESTAMP '2026-11-29 09:10:00');

SELECT * FROM lakestream.shop.customers ORDER BY id;
