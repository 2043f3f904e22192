-- The t$offsets view in both engines: records behind per bucket, falling to zero after tiering.
-- trino:
CREATE TABLE ${schema}.lag (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2);
INSERT INTO ${schema}.lag VALUES (1, 'a'), (2, 'b'), (3, 'c');
-- spark:
INSERT INTO ${schema}.lag VALUES (3, 'c2'), (4, 'd');
SELECT count(*), sum(log_end_offset), sum(records_behind), sum(lake_offset) FROM ${schema}.`lag$offsets`;
-- expect:
-- 2 | 5 | 5 | 0
-- trino:
SELECT count(*), sum(log_end_offset), sum(records_behind), sum(lake_offset) FROM ${schema}."lag$offsets";
-- expect:
-- 2 | 5 | 5 | 0
-- tier: lag
-- trino:
SELECT bucket, records_behind, lake_offset = log_end_offset FROM ${schema}."lag$offsets";
-- expect:
-- 0 | 0 | true
-- 1 | 0 | true
-- spark:
SELECT bucket, records_behind, lake_offset = log_end_offset FROM ${schema}.`lag$offsets`;
-- expect:
-- 0 | 0 | true
-- 1 | 0 | true
INSERT INTO ${schema}.lag VALUES (5, 'e');
SELECT sum(records_behind) FROM ${schema}.`lag$offsets`;
-- expect:
-- 1
-- both:
SELECT id, v FROM ${schema}.lag;
-- expect:
-- 1 | a
-- 2 | b
-- 3 | c2
-- 4 | d
-- 5 | e
