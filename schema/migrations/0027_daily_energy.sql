-- The service's daily energies: one row per tenant, site, fluid and local day (the site's time
-- zone), holding what the consumption endpoint of the fluid answers for that day as its period
-- (startTs and endTs the day's local midnights, step DAYS, every other parameter at its
-- default). The service computes the rows with its consumption engine and writes them for the
-- days an archive job's readings change, before the job is DONE; `energyctl daily rebuild`
-- writes them for all the data already stored. Each write replaces the day's row: the latest
-- version wins (read with FINAL, or argMax(…, version)).
--
-- energy_wh: Wh for both fluids (gas: the answer's kWh × 1,000); NULL when the day has no
-- usable data. heading_* is byTariffHeading as parallel arrays, dial_* the same energy by
-- meter dial (electricity). volume is the gas volume in volume_unit.
CREATE TABLE IF NOT EXISTS {{table "daily_energy"}} {{onCluster}} (
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
) ENGINE = {{engine "daily_energy" "ReplacingMergeTree(version)"}}
PARTITION BY toYYYYMM(day)
ORDER BY (tenant_id, site_id, fluid, day);
{{distributed "daily_energy" "cityHash64(tenant_id, site_id)"}};

-- Months and years of each site in its local calendar, summed from the latest row of each day.
-- complete: every day of the month (year) is in the table with status COMPLETE; only then is
-- energy_wh the consumption endpoint's MONTHS (YEARS) answer for that month (year). The
-- *_by_heading views split the same sums by tariff heading, one row per heading.
CREATE VIEW IF NOT EXISTS {{sharded "monthly_energy"}} {{onCluster}} AS
SELECT
    tenant_id,
    site_id,
    fluid,
    toStartOfMonth(day) AS month,
    sum(e) AS energy_wh,
    sum(v) AS volume,
    argMax(vu, day) AS volume_unit,
    count() AS days,
    countIf(st = 'COMPLETE') AS complete_days,
    toUInt8(countIf(st = 'COMPLETE') = toDayOfMonth(addDays(addMonths(month, 1), -1))) AS complete
FROM (
    -- Renamed so that the sums may take the columns' names.
    SELECT tenant_id, site_id, fluid, day, energy_wh AS e, volume AS v, volume_unit AS vu, status AS st
    FROM {{sharded "daily_energy"}} FINAL
)
GROUP BY tenant_id, site_id, fluid, month;

CREATE VIEW IF NOT EXISTS {{sharded "monthly_energy_by_heading"}} {{onCluster}} AS
SELECT tenant_id, site_id, fluid, toStartOfMonth(day) AS month, heading, sum(wh) AS energy_wh
FROM (
    SELECT tenant_id, site_id, fluid, day, heading, wh
    FROM {{sharded "daily_energy"}} FINAL
    ARRAY JOIN heading_names AS heading, heading_wh AS wh
)
GROUP BY tenant_id, site_id, fluid, month, heading;

CREATE VIEW IF NOT EXISTS {{sharded "yearly_energy"}} {{onCluster}} AS
SELECT
    tenant_id,
    site_id,
    fluid,
    toYear(day) AS year,
    sum(e) AS energy_wh,
    sum(v) AS volume,
    argMax(vu, day) AS volume_unit,
    count() AS days,
    countIf(st = 'COMPLETE') AS complete_days,
    toUInt8(countIf(st = 'COMPLETE') = toDayOfYear(toDate(concat(toString(year), '-12-31')))) AS complete
FROM (
    SELECT tenant_id, site_id, fluid, day, energy_wh AS e, volume AS v, volume_unit AS vu, status AS st
    FROM {{sharded "daily_energy"}} FINAL
)
GROUP BY tenant_id, site_id, fluid, year;

CREATE VIEW IF NOT EXISTS {{sharded "yearly_energy_by_heading"}} {{onCluster}} AS
SELECT tenant_id, site_id, fluid, toYear(day) AS year, heading, sum(wh) AS energy_wh
FROM (
    SELECT tenant_id, site_id, fluid, day, heading, wh
    FROM {{sharded "daily_energy"}} FINAL
    ARRAY JOIN heading_names AS heading, heading_wh AS wh
)
GROUP BY tenant_id, site_id, fluid, year, heading;
