-- The daily energies again, laid out for reading one site: the same rows and sort key as
-- daily_energy, without its monthly partitions. The consumption endpoint answers whole local
-- days of a site from here (query/consumption/daily_table.go): a site-year read from the
-- monthly table opens 13 parts; here it is one narrow range of one part once merged, a few
-- granules of 256 rows. daily_energy stays the table data teams read and its views sum.
--
-- Kept up to date by a materialized view: every insert into daily_energy (the ingest hook,
-- the rewrites after a site or tariff change, `energyctl daily rebuild`) writes the same rows
-- here in the same INSERT. The last statement fills it once from what daily_energy holds.
CREATE TABLE IF NOT EXISTS {{table "daily_energy_by_site"}} {{onCluster}} (
    tenant_id     String,
    site_id       String,
    fluid         String,
    day           Date,
    time_zone     String,
    start_ts      DateTime('UTC'),
    end_ts        DateTime('UTC'),
    energy_wh     Nullable(Float64),
    heading_names Array(String),
    heading_wh    Array(Float64),
    dial_names    Array(String),
    dial_wh       Array(Float64),
    volume        Nullable(Float64),
    volume_unit   String,
    quality       Float64,
    status        String,
    nature        String,
    error_flags   Array(String),
    index_natures Array(String),
    aggregated    UInt8,
    computed_ts   DateTime('UTC'),
    version       UInt64
) ENGINE = {{engine "daily_energy_by_site" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id, fluid, day)
SETTINGS index_granularity = 256;
{{distributed "daily_energy_by_site" "cityHash64(tenant_id, site_id)"}};

-- On a cluster the view watches the Distributed table, as the readings' by-site views do
-- (0024_indexes_by_site.sql): a view on the shards' replicated tables would lose the rows of
-- a block the replicated table drops as a duplicate.
CREATE MATERIALIZED VIEW IF NOT EXISTS {{sharded "daily_energy_by_site_writer"}} {{onCluster}}
TO {{sharded "daily_energy_by_site"}} AS
SELECT tenant_id, site_id, fluid, day, time_zone, start_ts, end_ts, energy_wh, heading_names, heading_wh,
    dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures, aggregated, computed_ts, version
FROM {{sharded "daily_energy"}};

INSERT INTO {{sharded "daily_energy_by_site"}} (tenant_id, site_id, fluid, day, time_zone, start_ts, end_ts, energy_wh,
    heading_names, heading_wh, dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures,
    aggregated, computed_ts, version)
SELECT tenant_id, site_id, fluid, day, time_zone, start_ts, end_ts, energy_wh, heading_names, heading_wh,
    dial_names, dial_wh, volume, volume_unit, quality, status, nature, error_flags, index_natures, aggregated, computed_ts, version
FROM {{sharded "daily_energy"}};
