-- An append-only table created in Trino: rows from both engines, repeated rows kept,
-- the union read the same before and after tiering, the lake catching up.
-- trino:
CREATE TABLE ${schema}.events (id bigint NOT NULL, kind varchar, amount double)
  WITH (bucket_key = ARRAY['id'], bucket_count = 3);
INSERT INTO ${schema}.events VALUES (1, 'click', 1.5), (2, 'view', NULL);
-- spark:
INSERT INTO ${schema}.events VALUES (1, 'click', 1.5), (3, NULL, 3.25);
-- both:
SELECT id, kind, amount FROM ${schema}.events;
-- expect:
-- 1 | click | 1.5
-- 1 | click | 1.5
-- 2 | view | NULL
-- 3 | NULL | 3.25
SELECT kind, count(*) FROM ${schema}.events GROUP BY kind;
-- expect:
-- NULL | 1
-- click | 2
-- view | 1
-- trino:
SELECT count(*) FROM ${schema}."events$lake";
-- expect:
-- 0
-- tier: events
-- trino:
SELECT count(*) FROM ${schema}."events$lake";
-- expect:
-- 4
INSERT INTO ${schema}.events VALUES (4, 'buy', 9.0);
-- both:
SELECT id, kind, amount FROM ${schema}.events WHERE id >= 3;
-- expect:
-- 3 | NULL | 3.25
-- 4 | buy | 9.0
SELECT count(*), sum(id) FROM ${schema}.events;
-- expect:
-- 5 | 11
