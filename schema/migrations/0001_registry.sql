-- Tenants (marketers), API tokens, sites, pods, tariffs and weather stations.
-- Every table is a ReplacingMergeTree keyed by its identity: a PUT writes a new row with a
-- higher version and reads use FINAL, so results never depend on merges.

CREATE TABLE IF NOT EXISTS {{table "tenants"}} {{onCluster}} (
    tenant_id  String,
    name       String,
    created_ts DateTime('UTC'),
    version    UInt64
) ENGINE = {{engine "tenants" "ReplacingMergeTree(version)"}}
ORDER BY tenant_id;
{{distributed "tenants" "cityHash64(tenant_id)"}};

-- Only the SHA-256 of a secret is stored. expires_ts and revoked_ts are 0 (1970) when unset.
CREATE TABLE IF NOT EXISTS {{table "api_tokens"}} {{onCluster}} (
    token_id    String,
    tenant_id   String,
    secret_hash String,
    scopes      Array(String),
    description String,
    created_ts  DateTime('UTC'),
    expires_ts  DateTime('UTC'),
    revoked_ts  DateTime('UTC'),
    version     UInt64
) ENGINE = {{engine "api_tokens" "ReplacingMergeTree(version)"}}
ORDER BY token_id;
{{distributed "api_tokens" "cityHash64(token_id)"}};

CREATE TABLE IF NOT EXISTS {{table "sites"}} {{onCluster}} (
    tenant_id          String,
    site_id            String,
    site_customer_id   String,
    person_customer_id String,
    timezone           String,
    weather_station_id String,
    tariff_id          String,
    heating_fluid      String,
    updated_ts         DateTime('UTC'),
    version            UInt64
) ENGINE = {{engine "sites" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id);
{{distributed "sites" "cityHash64(tenant_id, site_id)"}};

-- Points of delivery seen in archives, by fluid (ELEC or GAS).
CREATE TABLE IF NOT EXISTS {{table "pods"}} {{onCluster}} (
    tenant_id     String,
    site_id       String,
    pod_id        String,
    fluid         String,
    first_seen_ts DateTime('UTC')
) ENGINE = {{engine "pods" "ReplacingMergeTree()"}}
ORDER BY (tenant_id, site_id, pod_id, fluid);
{{distributed "pods" "cityHash64(tenant_id, site_id)"}};

-- A tariff (contract) is stored whole as its JSON definition; option and carbon coefficient
-- are also columns for direct queries.
CREATE TABLE IF NOT EXISTS {{table "tariffs"}} {{onCluster}} (
    tenant_id          String,
    tariff_id          String,
    option             String,
    carbon_coefficient Nullable(Float64),
    definition         String,
    updated_ts         DateTime('UTC'),
    version            UInt64
) ENGINE = {{engine "tariffs" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, tariff_id);
{{distributed "tariffs" "cityHash64(tenant_id, tariff_id)"}};

CREATE TABLE IF NOT EXISTS {{table "weather_stations"}} {{onCluster}} (
    tenant_id  String,
    station_id String,
    name       String,
    latitude   Float64,
    longitude  Float64,
    updated_ts DateTime('UTC'),
    version    UInt64
) ENGINE = {{engine "weather_stations" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, station_id);
{{distributed "weather_stations" "cityHash64(tenant_id, station_id)"}};
