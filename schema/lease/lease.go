// Package lease lets several energyd share work recorded in the store (archive jobs, erasures)
// without two of them doing it at once: a process holds a lease on each piece of work it runs,
// renews it while it runs it, and another process takes over work whose lease has expired (its
// holder died). Leases are rows of the job_leases table, keyed by the work's id; the latest
// written wins, so a claim writes its lease, waits for a concurrent claim to be replicated, and
// reads back which one won.
package lease

import (
	"context"
	"time"

	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/tables"
)

// Key names a piece of work: its tenant and its id (a job id, an erasure id).
type Key struct{ TenantID, ID string }

// Lease is the latest lease written on a piece of work.
type Lease struct {
	Owner   string
	Expires time.Time
}

// Leases reads and writes the leases of one process (Owner).
type Leases struct {
	db     *schema.DB
	Owner  string
	TTL    time.Duration
	rowVer schema.RowVersions
}

// New returns the leases of a new owner, each lasting ttl unless renewed.
func New(db *schema.DB, ttl time.Duration) *Leases {
	return &Leases{db: db, Owner: uuid.NewString(), TTL: ttl}
}

// Hold writes this owner's lease, expiring TTL from now, on each piece of work.
func (l *Leases) Hold(ctx context.Context, keys []Key) error {
	if len(keys) == 0 {
		return nil
	}
	b, err := l.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.JobLeases+" (tenant_id, job_id, owner, expires_ts, version)")
	if err != nil {
		return err
	}
	// Rounded up: a lease never expires before TTL has passed.
	expires := time.Now().UTC().Add(l.TTL + time.Second).Truncate(time.Second)
	first := l.rowVer.Reserve(len(keys))
	for i, k := range keys {
		if err := b.Append(k.TenantID, k.ID, l.Owner, expires, first+uint64(i)); err != nil {
			_ = b.Abort()
			return err
		}
	}
	return b.Send()
}

// Current returns the latest lease of each of the ids that has one.
func (l *Leases) Current(ctx context.Context, ids []string) (map[string]Lease, error) {
	out := map[string]Lease{}
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := l.db.Conn.Query(ctx, "SELECT job_id, argMax(owner, version), argMax(expires_ts, version) FROM "+tables.JobLeases+" WHERE has(?, job_id) GROUP BY job_id", ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var x Lease
		if err := rows.Scan(&id, &x.Owner, &x.Expires); err != nil {
			return nil, err
		}
		out[id] = x
	}
	return out, rows.Err()
}

// ClaimSettle is how long a claim waits for a concurrent claim by another process to be
// replicated before it reads which one won (the later write).
func (l *Leases) ClaimSettle() time.Duration { return min(time.Second, l.TTL/3) }

// Claim writes this owner's lease on each key, waits ClaimSettle, and returns the keys whose
// latest lease is still this owner's (another process claimed the others later).
func (l *Leases) Claim(ctx context.Context, keys []Key) ([]Key, error) {
	if err := l.Hold(ctx, keys); err != nil {
		return nil, err
	}
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-time.After(l.ClaimSettle()):
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		ids[i] = k.ID
	}
	cur, err := l.Current(ctx, ids)
	if err != nil {
		return nil, err
	}
	var won []Key
	for _, k := range keys {
		if cur[k.ID].Owner == l.Owner {
			won = append(won, k)
		}
	}
	return won, nil
}
