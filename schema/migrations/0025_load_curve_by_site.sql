-- The load-curve points again, laid out for reading one site: the same rows, read columns and
-- sort key as load_curve_points, without its monthly partitions and in 1,024-row granules. A 1,200-hour
-- window of one site (2,400 points of 30 minutes) read from the monthly table opens two or three
-- parts and reads whole 8,192-row granules in each (20,000 to 35,000 rows); here it is one narrow
-- range of one part once merged (4,096 rows). The consumption engine's load-curve reads
-- (HOURS and MINUTES steps, loadCurveCompletion) read this table; the monthly one stays the raw
-- record and serves scans over many sites.
--
-- Only the columns the reads need (not meter_reading_date, job_id): the view's write is what
-- every load-curve INSERT pays on top of the raw table's. Server CPU of inserting 362,000 points
-- of 1,000 sites (system.query_log, 6 interleaved runs each, mean): 0.58 s without a copy,
-- 0.83 s with a full copy, 0.67 s with this one.
--
-- Kept up to date by a materialized view: every insert into load_curve_points writes the same
-- rows here in the same INSERT (ingest, replays of a job, direct loads alike).
--
-- Migration 0026 drops this copy (its cost in disk and ingest, measured, is there). The
-- statement that filled it from the rows already stored was taken out before any release: on a
-- store of 10,000 sites (176 M points) it outlasted the migration deadline, so a store could not
-- have reached 0026.
CREATE TABLE IF NOT EXISTS {{table "load_curve_points_by_site"}} {{onCluster}} (
    tenant_id          String,
    site_id            String,
    pod_id             String,
    begin_ts           DateTime('UTC'),
    end_ts             DateTime('UTC'),
    generation_ts      DateTime('UTC'),
    value              Int64,
    reliability        UInt8
) ENGINE = {{engine "load_curve_points_by_site" "ReplacingMergeTree()"}}
ORDER BY (tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts)
SETTINGS index_granularity = 1024;
{{distributed "load_curve_points_by_site" "cityHash64(tenant_id, site_id)"}};

-- On a cluster the view watches the Distributed table, as the index tables' views do: a view on
-- the shards' local replicated table would lose rows when ClickHouse 18.16 drops a duplicate
-- block of the same INSERT.
CREATE MATERIALIZED VIEW IF NOT EXISTS {{sharded "load_curve_points_by_site_writer"}} {{onCluster}}
TO {{sharded "load_curve_points_by_site"}} AS
SELECT tenant_id, site_id, pod_id, begin_ts, end_ts, generation_ts, value, reliability
FROM {{sharded "load_curve_points"}};
