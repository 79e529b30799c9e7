package targets

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"energy/schema/tables"
)

// createdVersion is the row version of a notification's creation; every later state has a
// larger one, so writing the same event again never brings a delivered notification back.
const createdVersion = 1

// notificationID is the same for the same (target, event occurrence, channel), whoever
// computes it and however often: the key that makes delivery happen once.
func notificationID(tenantID, siteID, targetID, event, occurrence, channel string) string {
	h := sha256.New()
	for _, s := range []string{tenantID, siteID, targetID, event, occurrence, channel} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// add writes the notifications that are not stored yet, PENDING; those already stored (the
// same event written again, by a retried job or another replica) are left as they are.
func (o *Outbox) add(ctx context.Context, ns []Notification) error {
	if len(ns) == 0 {
		return nil
	}
	ids := make([]string, len(ns))
	for i, n := range ns {
		ids[i] = n.ID
	}
	rows, err := o.db.Conn.Query(ctx, "SELECT notification_id FROM "+tables.Notifications+" WHERE tenant_id = ? AND site_id = ? AND has(?, notification_id)",
		ns[0].TenantID, ns[0].SiteID, ids)
	if err != nil {
		return err
	}
	stored := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return err
		}
		stored[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	b, err := o.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Notifications+" ("+notificationColumns+", version)")
	if err != nil {
		return err
	}
	now := o.now().UTC()
	n := 0
	for _, x := range ns {
		if stored[x.ID] {
			continue
		}
		if err := b.Append(x.TenantID, x.SiteID, x.TargetID, x.ID, x.Event, x.Channel, x.Occurrence, x.Subject, x.Body,
			StatePending, now, time.Unix(0, 0).UTC(), uint32(0), "", now, time.Unix(0, 0).UTC(), "", uint64(createdVersion)); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return b.Abort()
	}
	return b.Send()
}

// write records a new state of a notification.
func (o *Outbox) write(ctx context.Context, x Notification) error {
	b, err := o.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.Notifications+" ("+notificationColumns+", version)")
	if err != nil {
		return err
	}
	if err := b.Append(x.TenantID, x.SiteID, x.TargetID, x.ID, x.Event, x.Channel, x.Occurrence, x.Subject, x.Body,
		x.State, x.Created.UTC(), orEpoch(x.Sent), x.Attempts, x.LastError, orEpoch(x.NextAttempt), orEpoch(x.ClaimedUntil), x.ClaimedBy, o.rowVer.Next()); err != nil {
		return err
	}
	return b.Send()
}

func orEpoch(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t.UTC()
}

// pending returns up to limit PENDING notifications of every tenant, oldest first.
func (o *Outbox) pending(ctx context.Context, limit int) ([]Notification, error) {
	return o.query(ctx, "1", "state = 'PENDING'", limit)
}

// depth counts the PENDING notifications.
func (o *Outbox) depth(ctx context.Context) (uint64, error) {
	var n uint64
	err := o.db.Conn.QueryRow(ctx, "SELECT count() FROM (SELECT state FROM "+tables.Notifications+" FINAL) WHERE state = 'PENDING'").Scan(&n)
	return n, err
}

// claimHolder returns who holds the latest claim of a notification (after a claim is written,
// the sender reads it back: of two senders that claimed together only one sees itself).
func (o *Outbox) claimHolder(ctx context.Context, x Notification) (string, error) {
	var by string
	err := o.db.Conn.QueryRow(ctx, "SELECT claimed_by FROM "+tables.Notifications+" FINAL WHERE tenant_id = ? AND site_id = ? AND target_id = ? AND notification_id = ?",
		x.TenantID, x.SiteID, x.TargetID, x.ID).Scan(&by)
	return by, err
}
