-- A primary-key table created in Spark, written by both engines and the Java writer:
-- every engine sees the latest version of each key before and after tiering.
-- spark:
CREATE TABLE ${schema}.users (id BIGINT, name STRING, score INT)
  TBLPROPERTIES ('primary-key'='id', 'bucket.num'='4');
INSERT INTO ${schema}.users VALUES (1, 'ann', 10), (2, 'bob', 20), (3, 'cy', 30);
-- trino:
INSERT INTO ${schema}.users VALUES (2, 'bob', 21), (4, 'dee', 40);
-- both:
SELECT id, name, score FROM ${schema}.users;
-- expect:
-- 1 | ann | 10
-- 2 | bob | 21
-- 3 | cy | 30
-- 4 | dee | 40
-- tier: users
-- spark:
INSERT INTO ${schema}.users VALUES (1, 'ann', 11), (5, 'eve', NULL);
-- delete: users id=3
-- both:
SELECT id, name, score FROM ${schema}.users ORDER BY id;
-- expect ordered:
-- 1 | ann | 11
-- 2 | bob | 21
-- 4 | dee | 40
-- 5 | eve | NULL
SELECT count(*), sum(score) FROM ${schema}.users WHERE score > 10;
-- expect:
-- 3 | 72
-- trino:
SELECT id, name, score FROM ${schema}."users$lake";
-- expect:
-- 1 | ann | 10
-- 2 | bob | 21
-- 3 | cy | 30
-- 4 | dee | 40
-- tier: users
-- spark:
SELECT id, name, score FROM ${schema}.`users$lake`;
-- expect:
-- 1 | ann | 11
-- 2 | bob | 21
-- 4 | dee | 40
-- 5 | eve | NULL
