package targets

import (
	"context"
	"time"

	"energy/schema"
	"energy/schema/tables"
)

// Notification states.
const (
	StatePending = "PENDING"
	StateSent    = "SENT"
	StateFailed  = "FAILED"
)

// Notification is one message of one event to one channel.
type Notification struct {
	TenantID string `json:"-"`
	SiteID   string `json:"siteId"`
	TargetID string `json:"targetId"`
	ID       string `json:"id"`
	Event    string `json:"event"`   // ON_DIST_INDEX_RECEPTION or THRESHOLD_OVERRUN
	Channel  string `json:"channel"` // EMAIL or SMS
	// Occurrence identifies the event: the archive job for ON_DIST_INDEX_RECEPTION, the
	// targetValue revision for THRESHOLD_OVERRUN.
	Occurrence   string    `json:"occurrence"`
	Subject      string    `json:"subject"`
	Body         string    `json:"body"`
	State        string    `json:"state"`
	Created      time.Time `json:"createdTs"`
	Sent         time.Time `json:"sentTs"`
	Attempts     uint32    `json:"attempts"`
	LastError    string    `json:"lastError,omitempty"`
	NextAttempt  time.Time `json:"nextAttemptTs"`
	ClaimedUntil time.Time `json:"-"` // an attempt is in flight until then (zero: none)
	ClaimedBy    string    `json:"-"` // the sender that holds the claim
}

// Outbox is the durable store of notifications, in ClickHouse.
type Outbox struct {
	db     *schema.DB
	rowVer schema.RowVersions
	now    func() time.Time
}

// NewOutbox returns the outbox over db.
func NewOutbox(db *schema.DB) *Outbox { return &Outbox{db: db, now: time.Now} }

const notificationColumns = "tenant_id, site_id, target_id, notification_id, event, channel, occurrence, subject, body, state, created_ts, sent_ts, attempts, last_error, next_attempt_ts, claimed_until, claimed_by"

// List returns a target's notifications, newest first.
func (o *Outbox) List(ctx context.Context, tenantID, siteID, targetID string) ([]Notification, error) {
	return o.query(ctx, "tenant_id = ? AND site_id = ? AND target_id = ?", "", 0, tenantID, siteID, targetID)
}

// query reads notifications matching where (on key columns, inside FINAL) and then outer (on
// the latest state of each: a filter inside FINAL could see an older version).
func (o *Outbox) query(ctx context.Context, where, outer string, limit int, args ...any) ([]Notification, error) {
	q := "SELECT " + notificationColumns + " FROM (SELECT " + notificationColumns + " FROM " + tables.Notifications + " FINAL WHERE " + where + ")"
	if outer != "" {
		q += " WHERE " + outer
	}
	if limit > 0 {
		q += " ORDER BY created_ts, notification_id LIMIT ?"
		args = append(args, limit)
	} else {
		q += " ORDER BY created_ts DESC, notification_id DESC"
	}
	rows, err := o.db.Conn.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Notification
	for rows.Next() {
		var x Notification
		if err := rows.Scan(&x.TenantID, &x.SiteID, &x.TargetID, &x.ID, &x.Event, &x.Channel, &x.Occurrence, &x.Subject, &x.Body,
			&x.State, &x.Created, &x.Sent, &x.Attempts, &x.LastError, &x.NextAttempt, &x.ClaimedUntil, &x.ClaimedBy); err != nil {
			return nil, err
		}
		x.Sent, x.NextAttempt, x.ClaimedUntil = unEpoch(x.Sent), unEpoch(x.NextAttempt), unEpoch(x.ClaimedUntil)
		out = append(out, x)
	}
	return out, rows.Err()
}

func unEpoch(t time.Time) time.Time {
	if t.Unix() <= 0 {
		return time.Time{}
	}
	return t.UTC()
}
