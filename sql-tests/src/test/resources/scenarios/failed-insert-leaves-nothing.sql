-- An INSERT with a NULL primary key fails in both engines, and leaves nothing behind:
-- none of its rows become visible, in either engine, before or after tiering.
-- trino:
CREATE TABLE ${schema}.t (id bigint, v varchar) WITH (primary_key = ARRAY['id'], bucket_count = 2);
INSERT INTO ${schema}.t VALUES (1, 'a'), (CAST(NULL AS bigint), 'b');
-- expect error: NULL value not allowed for NOT NULL column
-- spark:
INSERT INTO ${schema}.t VALUES (2, 'x'), (CAST(NULL AS BIGINT), 'y');
-- expect error: NULL value appeared in non-nullable field
-- both:
SELECT count(*) FROM ${schema}.t;
-- expect:
-- 0
-- trino:
INSERT INTO ${schema}.t VALUES (3, 'c');
-- tier: t
-- both:
SELECT id, v FROM ${schema}.t;
-- expect:
-- 3 | c
