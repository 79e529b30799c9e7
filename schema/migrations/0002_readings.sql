-- Raw readings from archives. Every nature and generation is kept; the winning reading is
-- chosen at query time. The sort key is the record's identity, so a re-sent record replaces
-- itself (ReplacingMergeTree keeps the last insert) and FINAL reads see it once.

-- Smart electricity indexes: one row per dial, value in Wh. A site has a few dozen rows a month
-- (daily readings × dials), so granules of 1,024 rows: with the default 8,192, reading one
-- site's year read a whole granule in each monthly partition (~100,000 rows for ~730).
CREATE TABLE IF NOT EXISTS {{table "elec_indexes"}} {{onCluster}} (
    tenant_id           String,
    site_id             String,
    pod_id              String,
    ts                  DateTime('UTC'),
    index_before_change UInt8,
    nature              String,
    generation_ts       DateTime('UTC'),
    dial                String,
    value               Int64,
    job_id              String
) ENGINE = {{engine "elec_indexes" "ReplacingMergeTree()"}}
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial)
SETTINGS index_granularity = 1024;
{{distributed "elec_indexes" "cityHash64(tenant_id, site_id)"}};

-- Cyclic gas indexes with their conversion factors (parallel arrays: unit name, factor).
CREATE TABLE IF NOT EXISTS {{table "gas_indexes"}} {{onCluster}} (
    tenant_id           String,
    site_id             String,
    pod_id              String,
    ts                  DateTime('UTC'),
    index_before_change UInt8,
    nature              String,
    generation_ts       DateTime('UTC'),
    value               Int64,
    unit                String,
    conversion_units    Array(String),
    conversion_factors  Array(Float64),
    job_id              String
) ENGINE = {{engine "gas_indexes" "ReplacingMergeTree()"}}
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts);
{{distributed "gas_indexes" "cityHash64(tenant_id, site_id)"}};

-- Daily max power in W.
CREATE TABLE IF NOT EXISTS {{table "max_powers"}} {{onCluster}} (
    tenant_id     String,
    site_id       String,
    pod_id        String,
    ts            DateTime('UTC'),
    generation_ts DateTime('UTC'),
    value         Int64,
    job_id        String
) ENGINE = {{engine "max_powers" "ReplacingMergeTree()"}}
PARTITION BY toYYYYMM(ts)
ORDER BY (tenant_id, site_id, pod_id, ts, generation_ts);
{{distributed "max_powers" "cityHash64(tenant_id, site_id)"}};

-- Load-curve points, one row per point: average power in W over [begin_ts, end_ts).
-- beginTs- and endTs-stamped points are both stored as their interval.
CREATE TABLE IF NOT EXISTS {{table "load_curve_points"}} {{onCluster}} (
    tenant_id          String,
    site_id            String,
    pod_id             String,
    begin_ts           DateTime('UTC'),
    end_ts             DateTime('UTC'),
    generation_ts      DateTime('UTC'),
    value              Int64,
    reliability        UInt8,
    meter_reading_date Date,
    job_id             String
) ENGINE = {{engine "load_curve_points" "ReplacingMergeTree()"}}
PARTITION BY toYYYYMM(begin_ts)
ORDER BY (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts);
{{distributed "load_curve_points" "cityHash64(tenant_id, site_id)"}};
