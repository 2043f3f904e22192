-- Step 4 (Trino): a delete through the log, then one table seen three ways, before the fresh
-- changes are tiered.
DELETE FROM lakestream.shop.customers WHERE city = 'Nuenen';
-- The union read: lake rows merged with the log tail (Ada's new city, Grace's balance, Alan, Edsger gone).
SELECT id, name, city, balance FROM lakestream.shop.customers ORDER BY id;
-- The lake alone, read by Trino's stock Iceberg connector (catalog iceberg, same warehouse): one tiering round behind.
SELECT id, name, city, balance FROM iceberg.shop.customers ORDER BY id;
-- Freshness per bucket: what the lake does not hold yet.
SELECT bucket, lake_offset, log_end_offset, records_behind FROM lakestream.shop."customers$offsets" ORDER BY bucket;
-- The append-only table, union read across lake and log.
SELECT order_id, customer_id, amount FROM lakestream.shop.orders ORDER BY order_id;
