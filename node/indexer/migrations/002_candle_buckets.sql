-- Candle lines kept 256 to a row (one interval's consecutive slots), as the embedded store keeps
-- them: a month of 1-minute candles is 169 rows of ready text instead of 43,200 rows aggregated
-- at read time. Rebuilt from `candles` for the buckets each batch touches, in the batch's
-- transaction; `candles` stays the table to query.
CREATE TABLE candle_buckets (
  coin     text COLLATE "C" NOT NULL,
  interval text NOT NULL,
  bucket   bigint NOT NULL,
  lines    text NOT NULL,
  PRIMARY KEY (coin, interval, bucket)
);
-- Read whole on every candle query: stored out of line without compression (pglz costs more to
-- undo than the bytes it saves here).
ALTER TABLE candle_buckets ALTER COLUMN lines SET STORAGE EXTERNAL;

INSERT INTO candle_buckets (coin, interval, bucket, lines)
SELECT coin, interval, t - t % span AS bucket, string_agg(line, E'\n' ORDER BY t)
FROM (
  SELECT coin, interval, t, line, 256 * CASE interval
    WHEN '1m' THEN 60000 WHEN '3m' THEN 180000 WHEN '5m' THEN 300000 WHEN '15m' THEN 900000 WHEN '30m' THEN 1800000
    WHEN '1h' THEN 3600000 WHEN '2h' THEN 7200000 WHEN '4h' THEN 14400000 WHEN '8h' THEN 28800000 WHEN '12h' THEN 43200000
    WHEN '1d' THEN 86400000 WHEN '3d' THEN 259200000 WHEN '1w' THEN 604800000 END::bigint AS span
  FROM candles
) c
GROUP BY coin, interval, t - t % span;
