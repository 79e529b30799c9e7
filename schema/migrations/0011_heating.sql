-- Heating schedules: one per site, stored whole as its JSON definition (modes and weekly
-- calendar). A PUT writes a new row with a higher version; reads use FINAL.
CREATE TABLE IF NOT EXISTS {{table "heating_schedules"}} {{onCluster}} (
    tenant_id  String,
    site_id    String,
    definition String,
    updated_ts DateTime('UTC'),
    version    UInt64
) ENGINE = {{engine "heating_schedules" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id);
{{distributed "heating_schedules" "cityHash64(tenant_id, site_id)"}};

-- The gas tariff of a site (a tariff of option GAS), beside its electricity tariff.
-- Re-running the migration after a crash meets a column that already exists, which the
-- migrator accepts.
ALTER TABLE {{table "sites"}} {{onCluster}} ADD COLUMN gas_tariff_id String DEFAULT '' AFTER tariff_id;
