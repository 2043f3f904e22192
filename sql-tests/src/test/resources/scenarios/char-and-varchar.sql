-- CHAR(n) is refused by both engines (coded, naming the supported types); VARCHAR(n) is stored as a string
-- without its length, so a value Spark writes into a VARCHAR(3) column reads the same, whole and unpadded,
-- in Trino and Spark, from the log and from the lake (docs/decisions.md, "CHAR and VARCHAR").
-- spark:
CREATE TABLE ${schema}.c (id BIGINT, c CHAR(5));
-- expect error: Column 'c' has Spark type CHAR(5), which a Lakestream table cannot hold
-- trino:
CREATE TABLE ${schema}.c (id bigint, c char(5));
-- expect error: char(n) is not stored: use varchar
-- spark:
CREATE TABLE ${schema}.v (id BIGINT, v VARCHAR(3), s STRUCT<x: VARCHAR(2)>) TBLPROPERTIES ('primary-key'='id', 'bucket.num'='2');
INSERT INTO ${schema}.v VALUES (1, 'ab', named_struct('x', 'x')), (2, 'abcdef', named_struct('x', 'xyz'));
-- trino:
INSERT INTO ${schema}.v VALUES (3, 'a ', ROW('yz'));
-- both:
SELECT id, '[' || v || ']', length(v), s.x FROM ${schema}.v;
-- expect:
-- 1 | [ab] | 2 | x
-- 2 | [abcdef] | 6 | xyz
-- 3 | [a ] | 2 | yz
-- tier: v
-- both:
SELECT id, '[' || v || ']', length(v) FROM ${schema}.v WHERE v = 'abcdef';
-- expect:
-- 2 | [abcdef] | 6
-- trino:
SELECT typeof(v), typeof(s) FROM ${schema}.v WHERE id = 1;
-- expect:
-- varchar | row("x" varchar)
