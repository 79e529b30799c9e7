-- The audit trail: who changed what and when, one row per admin change (token creation and
-- revocation, site, tariff, weather station, heating schedule and target changes, erasures and
-- exports). Append-only: rows are inserted, never updated, and no table engine replaces them.
-- who: token_id (the API token, or "energyctl:<user>" for a change made with the command-line
-- tool) of tenant_id. before_digest and after_digest are SHA-256 of the resource's JSON before
-- and after the change (empty: absent), so that a change can be checked against a copy of the
-- resource without the trail holding its content. No site_id column: the trail of an erased
-- site's erasure stays (resource names it).
CREATE TABLE IF NOT EXISTS {{table "audit_events"}} {{onCluster}} (
    event_ts      DateTime('UTC'),
    event_id      String,
    tenant_id     String,
    token_id      String,
    action        String,
    resource      String,
    before_digest String,
    after_digest  String
) ENGINE = {{engine "audit_events" "MergeTree()"}}
PARTITION BY toYYYYMM(event_ts)
ORDER BY (tenant_id, event_ts, event_id);
