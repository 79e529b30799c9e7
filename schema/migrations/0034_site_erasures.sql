-- Erasures of a site's data (DELETE /v2/sites/{siteId}), one row per state change of one
-- erasure: the latest version is its state. An energyd that starts resumes every erasure not
-- DONE, so a crash in the middle of one only delays it. erased_site names the site whose rows
-- were removed: the record of the request outlives the data (it is deliberately not a site_id
-- column, which the erasure itself would find and empty). report is JSON: the rows removed per
-- table.
CREATE TABLE IF NOT EXISTS {{table "site_erasures"}} {{onCluster}} (
    tenant_id    String,
    erasure_id   String,
    erased_site  String,
    token_id     String,
    state        String,
    requested_ts DateTime('UTC'),
    state_ts     DateTime('UTC'),
    report       String,
    error        String,
    version      UInt64
) ENGINE = {{engine "site_erasures" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, erasure_id);
