-- The index readings again, laid out for reading one site: the same rows and sort key as
-- elec_indexes and gas_indexes, without their monthly partitions. A site-year read from the
-- monthly tables opens 13 parts and reads a granule in each (about 15,000 rows for 732); here
-- it is one narrow range of one part once merged. The per-site reads of the consumption engine
-- (consumption, heating, targets) read these tables; the monthly ones stay the raw record and
-- serve scans over many sites.
--
-- Kept up to date by materialized views: every insert into the raw table writes the same rows
-- here in the same INSERT (ingest, replays of a job, direct loads alike). Rebuilt from the raw
-- tables by `energyctl readings rebuild`; the last statements below fill them once from what
-- the raw tables already hold (re-running them only adds identical rows, which the readers
-- count once).
CREATE TABLE IF NOT EXISTS {{table "elec_indexes_by_site"}} {{onCluster}} (
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
) ENGINE = {{engine "elec_indexes_by_site" "ReplacingMergeTree()"}}
ORDER BY (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial)
SETTINGS index_granularity = 1024;
{{distributed "elec_indexes_by_site" "cityHash64(tenant_id, site_id)"}};

CREATE TABLE IF NOT EXISTS {{table "gas_indexes_by_site"}} {{onCluster}} (
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
) ENGINE = {{engine "gas_indexes_by_site" "ReplacingMergeTree()"}}
ORDER BY (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts)
SETTINGS index_granularity = 1024;
{{distributed "gas_indexes_by_site" "cityHash64(tenant_id, site_id)"}};

-- On a cluster the views watch the Distributed tables: the node that receives an INSERT copies its
-- rows through the by-site Distributed table to the site's shard. A view on the shards' local
-- replicated tables would lose rows: ClickHouse 18.16 skips a view's write when the replicated
-- table drops a duplicate block of the same INSERT (a partly re-sent archive, a replayed job).
CREATE MATERIALIZED VIEW IF NOT EXISTS {{sharded "elec_indexes_by_site_writer"}} {{onCluster}}
TO {{sharded "elec_indexes_by_site"}} AS
SELECT tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id
FROM {{sharded "elec_indexes"}};

CREATE MATERIALIZED VIEW IF NOT EXISTS {{sharded "gas_indexes_by_site_writer"}} {{onCluster}}
TO {{sharded "gas_indexes_by_site"}} AS
SELECT tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id
FROM {{sharded "gas_indexes"}};

INSERT INTO {{sharded "elec_indexes_by_site"}} (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id)
SELECT tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, dial, value, job_id
FROM {{sharded "elec_indexes"}};

INSERT INTO {{sharded "gas_indexes_by_site"}} (tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id)
SELECT tenant_id, site_id, pod_id, ts, index_before_change, nature, generation_ts, value, unit, conversion_units, conversion_factors, job_id
FROM {{sharded "gas_indexes"}};
