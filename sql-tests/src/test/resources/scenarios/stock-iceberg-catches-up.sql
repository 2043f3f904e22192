-- Trino's stock Iceberg connector (catalog iceberg, same warehouse) reads only the lake: it sees
-- a change after the tiering round that moves it there, while the union read sees it at once.
-- trino:
CREATE TABLE ${schema}.stock (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2);
INSERT INTO ${schema}.stock VALUES (1, 'a'), (2, 'b');
SELECT count(*) FROM iceberg.${schema_name}.stock;
-- expect:
-- 0
-- tier: stock
SELECT id, v FROM iceberg.${schema_name}.stock;
-- expect:
-- 1 | a
-- 2 | b
-- spark:
INSERT INTO ${schema}.stock VALUES (2, 'b2'), (3, 'c');
-- trino:
SELECT id, v FROM iceberg.${schema_name}.stock;
-- expect:
-- 1 | a
-- 2 | b
SELECT id, v FROM ${schema}.stock;
-- expect:
-- 1 | a
-- 2 | b2
-- 3 | c
-- tier: stock
SELECT id, v FROM iceberg.${schema_name}.stock;
-- expect:
-- 1 | a
-- 2 | b2
-- 3 | c
