-- Recommendation (advice) jobs. Every status change writes the whole job again with a higher
-- version; reads use FINAL (filters on columns other than the key go in an outer query).
-- inputs is the JSON array of the validated inputs (site data already filled in), result the
-- JSON array of results once DONE, error the reason of an ERROR.
CREATE TABLE IF NOT EXISTS {{table "advice_jobs"}} {{onCluster}} (
    tenant_id  String,
    job_id     String,
    status     String,
    created_ts DateTime('UTC'),
    updated_ts DateTime('UTC'),
    inputs     String,
    result     String,
    error      String,
    version    UInt64
) ENGINE = {{engine "advice_jobs" "ReplacingMergeTree(version)"}}
ORDER BY (tenant_id, job_id);
{{distributed "advice_jobs" "cityHash64(tenant_id, job_id)"}};
