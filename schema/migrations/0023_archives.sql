-- Accepted archives and job leases, used when several energyd share a cluster
-- (--clickhouse-cluster); a single node keeps its archives in its spool directory and its jobs
-- in memory, and leaves both tables empty.
--
-- archives: the bytes of each accepted archive, written with insert_quorum = 2 before the
-- upload is answered, so no single disk holds the only copy. Sharded by job: the row that
-- empties an archive once its job is final (data '', version 2) lands on the archive's shard,
-- where ReplacingMergeTree drops the bytes at its next merge.
CREATE TABLE IF NOT EXISTS {{table "archives"}} {{onCluster}} (
    tenant_id    String,
    job_id       String,
    archive      String,
    submitted_ts DateTime('UTC'),
    data         String,
    version      UInt64
) ENGINE = {{engine "archives" "ReplacingMergeTree(version)"}}
ORDER BY job_id;
{{distributed "archives" "cityHash64(job_id)"}};

-- job_leases: which energyd works on a job and until when; it renews the lease while it works,
-- and another energyd takes over a job whose lease has expired (its holder died).
CREATE TABLE IF NOT EXISTS {{table "job_leases"}} {{onCluster}} (
    tenant_id  String,
    job_id     String,
    owner      String,
    expires_ts DateTime('UTC'),
    version    UInt64
) ENGINE = {{engine "job_leases" "ReplacingMergeTree(version)"}}
ORDER BY job_id;
