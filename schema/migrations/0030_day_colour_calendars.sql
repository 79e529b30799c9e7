-- Day-colour calendars (TEMPO): a calendar's colour day starts at day_starts_at (HH:MM, local
-- time of the site) of its date and ends at the same time the next date. Both tables are
-- ReplacingMergeTree keyed by identity: a PUT writes rows with a higher version and reads use
-- FINAL, so a date's colour is the last one sent.
CREATE TABLE IF NOT EXISTS {{table "day_colour_calendars"}} {{onCluster}} (
    tenant_id     String,
    calendar_id   String,
    name          String,
    day_starts_at String,
    updated_ts    DateTime('UTC'),
    version       UInt64
) ENGINE = {{engine "day_colour_calendars" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, calendar_id);
{{distributed "day_colour_calendars" "cityHash64(tenant_id, calendar_id)"}};

-- colour is BLUE, WHITE or RED.
CREATE TABLE IF NOT EXISTS {{table "day_colours"}} {{onCluster}} (
    tenant_id   String,
    calendar_id String,
    date        Date,
    colour      String,
    updated_ts  DateTime('UTC'),
    version     UInt64
) ENGINE = {{engine "day_colours" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, calendar_id, date);
{{distributed "day_colours" "cityHash64(tenant_id, calendar_id)"}};
