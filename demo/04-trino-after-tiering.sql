-- Step 6 (Trino), after another tiering pass: the lag is gone, and the lake alone has caught up.
SELECT bucket, lake_offset, log_end_offset, records_behind FROM lakestream.shop."customers$offsets" ORDER BY bucket;
SELECT id, name, city, balance FROM iceberg.shop.customers ORDER BY id;
