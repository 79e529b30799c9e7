-- Changes to a site's data (site_id set: its readings) or to a tenant's reference data (site_id
-- empty: sites, tariffs), one row per change. Every energyd watches this table and drops the
-- cached answers that a change made through another process made stale.
CREATE TABLE IF NOT EXISTS {{table "data_versions"}} {{onCluster}} (
    tenant_id  String,
    site_id    String,
    version    UInt64,
    changed_ts DateTime('UTC')
) ENGINE = {{engine "data_versions" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id);
