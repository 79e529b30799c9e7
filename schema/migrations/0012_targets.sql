-- Site contacts, targets and the notification outbox.

-- Who receives a site's target notifications. A separate table (not columns of sites) so that
-- the migration stays idempotent: ALTER … ADD COLUMN cannot be re-run safely on every release.
-- Every PUT of the site writes its contact again (empty strings: no contact).
CREATE TABLE IF NOT EXISTS {{table "site_contacts"}} {{onCluster}} (
    tenant_id String,
    site_id   String,
    email     String,
    phone     String,
    version   UInt64
) ENGINE = {{engine "site_contacts" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id);
{{distributed "site_contacts" "cityHash64(tenant_id, site_id)"}};

-- A target's fields that never change after creation. default_target_value is NaN when unset.
CREATE TABLE IF NOT EXISTS {{table "targets"}} {{onCluster}} (
    tenant_id            String,
    site_id              String,
    target_id            String,
    generation_ts        DateTime('UTC'),
    begin_ts             DateTime('UTC'),
    end_ts               DateTime('UTC'),
    type                 String,
    unit                 String,
    default_target_value Float64,
    name                 String,
    version              UInt64
) ENGINE = {{engine "targets" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id, target_id);
{{distributed "targets" "cityHash64(tenant_id, site_id)"}};

-- The updatable fields of a target (targetValue, notificationChannels, notificationType), one
-- row per field: two updates of different fields, even at the same instant from two replicas,
-- never overwrite each other; the latest write of one field wins. value is the field's text
-- (a number, channels joined by ",", a notification type).
CREATE TABLE IF NOT EXISTS {{table "target_settings"}} {{onCluster}} (
    tenant_id String,
    site_id   String,
    target_id String,
    field     String,
    value     String,
    version   UInt64
) ENGINE = {{engine "target_settings" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id, target_id, field);
{{distributed "target_settings" "cityHash64(tenant_id, site_id)"}};

-- The notification outbox. notification_id is derived from (target, event occurrence, channel),
-- so writing the same event again replaces nothing new. A notification is created with version 1
-- and every later state is written with a larger version, so a late re-write of the creation can
-- never bring back PENDING over SENT or FAILED.
-- claimed_until/claimed_by: an attempt is handing the message over until then, by that sender
-- (0 and empty: none); next_attempt_ts: the backoff.
CREATE TABLE IF NOT EXISTS {{table "notifications"}} {{onCluster}} (
    tenant_id       String,
    site_id         String,
    target_id       String,
    notification_id String,
    event           String,
    channel         String,
    occurrence      String,
    subject         String,
    body            String,
    state           String,
    created_ts      DateTime('UTC'),
    sent_ts         DateTime('UTC'),
    attempts        UInt32,
    last_error      String,
    next_attempt_ts DateTime('UTC'),
    claimed_until   DateTime('UTC'),
    claimed_by      String,
    version         UInt64
) ENGINE = {{engine "notifications" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, site_id, target_id, notification_id);
{{distributed "notifications" "cityHash64(tenant_id, site_id)"}};
