-- Column types read the same in both engines, and filters on columns changed in the log tail:
-- a newer version that fails a filter hides the older lake version that passes it.
-- spark:
CREATE TABLE ${schema}.items (id BIGINT, active BOOLEAN, price DECIMAL(10, 2), day DATE, weight DOUBLE, label STRING)
  TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2');
INSERT INTO ${schema}.items VALUES
  (1, true, 1.50, DATE '2026-01-01', 0.5, 'a'),
  (2, false, 20.00, DATE '2026-02-01', 2.0, 'b'),
  (3, true, 300.25, DATE '2026-03-01', NULL, NULL);
-- tier: items
-- trino:
INSERT INTO ${schema}.items VALUES (2, true, 25.00, DATE '2026-02-02', 2.5, 'b2'), (3, false, 3.00, DATE '2026-03-01', 3.0, 'c');
-- both:
SELECT id, active, price, day, weight, label FROM ${schema}.items;
-- expect:
-- 1 | true | 1.50 | 2026-01-01 | 0.5 | a
-- 2 | true | 25.00 | 2026-02-02 | 2.5 | b2
-- 3 | false | 3.00 | 2026-03-01 | 3.0 | c
SELECT id FROM ${schema}.items WHERE active;
-- expect:
-- 1
-- 2
SELECT id FROM ${schema}.items WHERE price > 100;
-- expect: nothing
SELECT id FROM ${schema}.items WHERE day = DATE '2026-02-01';
-- expect: nothing
SELECT id, label FROM ${schema}.items WHERE label IS NULL OR id = 1;
-- expect:
-- 1 | a
