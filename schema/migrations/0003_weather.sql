-- Weather observations and forecasts share one series: for one station and date the row with
-- the highest version (latest received) wins.
CREATE TABLE IF NOT EXISTS {{table "weather_observations"}} {{onCluster}} (
    tenant_id   String,
    station_id  String,
    date        DateTime('UTC'),
    temperature Float64,
    wind        Float64,
    cloudiness  Float64,
    picto       String,
    version     UInt64
) ENGINE = {{engine "weather_observations" "ReplacingMergeTree(version)"}}
PARTITION BY toYYYYMM(date)
ORDER BY (tenant_id, station_id, date);
{{distributed "weather_observations" "cityHash64(tenant_id, station_id)"}};
