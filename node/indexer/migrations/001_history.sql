-- The history store (issue #19): what the indexer writes and /v4 and /stats read.
-- Times are ms since the epoch (bigint), as the API serves them. Prices, sizes and USDC amounts
-- are `numeric` without a typmod, so a value keeps the digits it was written with: the store
-- reads them back as `numeric::text`, the same string the indexer wrote ("0.5", never
-- "0.50000"). Text that identifies something (coins, addresses) sorts bytewise (COLLATE "C"),
-- as the level store's keys do. Every newest-first read is one backward scan of a
-- (partition, time, id) index.

CREATE TABLE trades (
  id          bigint PRIMARY KEY,
  coin        text COLLATE "C" NOT NULL,
  time        bigint NOT NULL,
  height      bigint NOT NULL,
  tid         bigint NOT NULL,
  px          numeric NOT NULL,
  sz          numeric NOT NULL,
  side        text NOT NULL CHECK (side IN ('B', 'A')),
  hash        text NOT NULL,
  buyer       text COLLATE "C" NOT NULL,
  seller      text COLLATE "C" NOT NULL,
  liquidation boolean NOT NULL
);
CREATE INDEX trades_coin_time ON trades (coin, time, id);

-- `line` is the candle as the store serves it ("t,o,h,l,c,v,n"), kept so that a month of
-- 1-minute candles (43,200 rows) leaves the server as one string_agg of ready text. Candles are
-- updated in place many times: fillfactor leaves room for HOT updates (no indexed column changes).
CREATE TABLE candles (
  coin     text COLLATE "C" NOT NULL,
  interval text NOT NULL,
  t        bigint NOT NULL,
  o        numeric NOT NULL,
  h        numeric NOT NULL,
  l        numeric NOT NULL,
  c        numeric NOT NULL,
  v        numeric NOT NULL,
  n        bigint NOT NULL,
  line     text NOT NULL GENERATED ALWAYS AS (
    t::text || ',' || o::text || ',' || h::text || ',' || l::text || ',' || c::text || ',' || v::text || ',' || n::text) STORED,
  PRIMARY KEY (coin, interval, t)
) WITH (fillfactor = 80);

CREATE TABLE funding (
  id           bigint PRIMARY KEY,
  coin         text COLLATE "C" NOT NULL,
  interval     text NOT NULL CHECK (interval IN ('1h', '8h')),
  time         bigint NOT NULL,
  height       bigint NOT NULL,
  funding_rate numeric NOT NULL,
  premium      numeric NOT NULL,
  paid         numeric NOT NULL
);
CREATE INDEX funding_coin_time ON funding (coin, interval, time, id);

CREATE TABLE liquidations (
  id                 bigint PRIMARY KEY,
  coin               text COLLATE "C" NOT NULL,
  time               bigint NOT NULL,
  height             bigint NOT NULL,
  address            text COLLATE "C" NOT NULL,
  szi                numeric NOT NULL,
  leverage_type      text NOT NULL CHECK (leverage_type IN ('cross', 'isolated')),
  method             text NOT NULL,
  account_value      numeric NOT NULL,
  maintenance_margin numeric NOT NULL,
  deficit            numeric NOT NULL
);
CREATE INDEX liquidations_coin_time ON liquidations (coin, time, id);
CREATE INDEX liquidations_time ON liquidations (time, id);

CREATE TABLE open_interest (
  id            bigint PRIMARY KEY,
  coin          text COLLATE "C" NOT NULL,
  time          bigint NOT NULL,
  height        bigint NOT NULL,
  open_interest numeric NOT NULL,
  mark_px       numeric NOT NULL
);
CREATE INDEX open_interest_coin_time ON open_interest (coin, time, id);
CREATE INDEX open_interest_time ON open_interest (time);

-- Levels as jsonb arrays of {"px", "sz", "n"} (jsonb orders an object's keys its own way: the
-- store rebuilds each level as {px, sz, n}).
CREATE TABLE book_snapshots (
  id     bigint PRIMARY KEY,
  coin   text COLLATE "C" NOT NULL,
  time   bigint NOT NULL,
  height bigint NOT NULL,
  bids   jsonb NOT NULL,
  asks   jsonb NOT NULL
);
CREATE INDEX book_snapshots_coin_time ON book_snapshots (coin, time, id);
CREATE INDEX book_snapshots_time ON book_snapshots (time);

-- `direction` groups refunds with withdrawals: transfers('withdraw') lists both.
CREATE TABLE transfers (
  id        bigint PRIMARY KEY,
  address   text COLLATE "C" NOT NULL,
  type      text NOT NULL CHECK (type IN ('deposit', 'withdraw', 'withdrawRefund')),
  direction text NOT NULL GENERATED ALWAYS AS (CASE WHEN type = 'deposit' THEN 'deposit' ELSE 'withdraw' END) STORED,
  time      bigint NOT NULL,
  height    bigint NOT NULL,
  usdc      numeric NOT NULL,
  fee       numeric NOT NULL,
  chain_id  bigint NOT NULL,
  hash      text NOT NULL
);
CREATE INDEX transfers_user_time ON transfers (direction, address, time, id);
CREATE INDEX transfers_time ON transfers (direction, time, id);

CREATE TABLE daily_stats (
  day         bigint PRIMARY KEY,
  volume      numeric NOT NULL,
  trades      bigint NOT NULL,
  users       bigint NOT NULL,
  new_users   bigint NOT NULL,
  deposits    numeric NOT NULL,
  withdrawals numeric NOT NULL
);

CREATE TABLE coin_daily_stats (
  day           bigint NOT NULL,
  coin          text COLLATE "C" NOT NULL,
  volume        numeric NOT NULL,
  trades        bigint NOT NULL,
  open_interest numeric NOT NULL,
  mark_px       numeric NOT NULL,
  funding_sum   numeric NOT NULL,
  PRIMARY KEY (day, coin)
);

CREATE TABLE coin_hourly_stats (
  hour   bigint NOT NULL,
  coin   text COLLATE "C" NOT NULL,
  volume numeric NOT NULL,
  trades bigint NOT NULL,
  PRIMARY KEY (hour, coin)
);

-- Every address ever seen, with the first day it was seen; and who was seen on each day.
CREATE TABLE users (
  address   text COLLATE "C" PRIMARY KEY,
  first_day bigint NOT NULL
);

CREATE TABLE day_users (
  day     bigint NOT NULL,
  address text COLLATE "C" NOT NULL,
  PRIMARY KEY (day, address)
);

-- One row: the watermark (the last block the history holds) and the running totals.
CREATE TABLE meta (
  singleton   boolean PRIMARY KEY DEFAULT true CHECK (singleton),
  height      bigint NOT NULL,
  users       bigint NOT NULL,
  volume      numeric NOT NULL,
  deposits    numeric NOT NULL,
  withdrawals numeric NOT NULL
);
