-- Archive collection jobs. Every state transition writes the whole job again with a higher
-- version; reads use FINAL (filters on columns other than the key go in an outer query, so
-- they see only the latest version of each job).
-- history_states/history_ts are the parallel arrays of state.history; files is the JSON of
-- report.files (only the job detail reads it).
CREATE TABLE IF NOT EXISTS {{table "jobs"}} {{onCluster}} (
    tenant_id           String,
    job_id              String,
    archive             String,
    state               String,
    state_ts            DateTime('UTC'),
    submitted_ts        DateTime('UTC'),
    history_states      Array(String),
    history_ts          Array(DateTime('UTC')),
    nb_operations_total UInt64,
    nb_operations_ok    UInt64,
    nb_operations_ko    UInt64,
    error_code          String,
    error_message       String,
    files               String,
    version             UInt64
) ENGINE = {{engine "jobs" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, job_id);
{{distributed "jobs" "cityHash64(tenant_id, job_id)"}};
