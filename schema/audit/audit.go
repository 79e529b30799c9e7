// Package audit writes and reads the audit trail: one append-only row per admin change (who,
// what, when, digests of the resource before and after). The stores that make the changes
// (schema/registry, query/targets) write it; who made a change travels in the context.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"energy/schema"
	"energy/schema/tables"
)

// Actions recorded.
const (
	TokenCreate        = "token.create"
	TokenRevoke        = "token.revoke"
	SitePut            = "site.put"
	SiteErase          = "site.erase"
	SiteExport         = "site.export"
	TariffPut          = "tariff.put"
	StationPut         = "station.put"
	HeatingSchedulePut = "heating-schedule.put"
	TargetCreate       = "target.create"
	TargetUpdate       = "target.update"
	commandLinePrefix  = "energyctl:"
)

// Actor is who makes a change: an API token of a tenant, or an operator at the command line.
type Actor struct {
	TokenID  string
	TenantID string
}

type actorKey struct{}

// WithActor tells the stores who makes the changes done with ctx.
func WithActor(ctx context.Context, a Actor) context.Context {
	return context.WithValue(ctx, actorKey{}, a)
}

// CommandLine is the actor of changes made with energyctl by the operating-system user.
func CommandLine(user string) Actor {
	if user == "" {
		user = "unknown"
	}
	return Actor{TokenID: commandLinePrefix + user}
}

func actorOf(ctx context.Context) Actor {
	a, _ := ctx.Value(actorKey{}).(Actor)
	return a
}

// Event is one row of the trail.
type Event struct {
	TS           time.Time `json:"ts"`
	EventID      string    `json:"eventId"`  // a version 7 UUID: ordered in time
	TenantID     string    `json:"tenantId"` // the tenant whose resource changed
	TokenID      string    `json:"tokenId"`  // who: the API token, or energyctl:<user>
	Action       string    `json:"action"`
	Resource     string    `json:"resource"` // sites/S1, tariffs/T, tokens/ID, sites/S1/targets/ID
	BeforeDigest string    `json:"beforeDigest,omitempty"`
	AfterDigest  string    `json:"afterDigest,omitempty"`
}

// Digest is the SHA-256 of v's JSON, or "" for nil (the resource did not exist).
func Digest(v any) string {
	if v == nil {
		return ""
	}
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// Record appends one change of tenantID's resource, made by the actor in ctx; before and
// after are the resource as stored (nil: absent).
func Record(ctx context.Context, db *schema.DB, tenantID, action, resource string, before, after any) error {
	a := actorOf(ctx)
	// A version 7 UUID grows with time (and within one process even within a millisecond), so
	// ordering by (event_ts, event_id) keeps the order of one energyd's changes in a second.
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	e := Event{TS: time.Now().UTC(), EventID: id.String(), TenantID: tenantID, TokenID: a.TokenID, Action: action,
		Resource: resource, BeforeDigest: Digest(before), AfterDigest: Digest(after)}
	b, err := db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.AuditEvents+" (event_ts, event_id, tenant_id, token_id, action, resource, before_digest, after_digest)")
	if err != nil {
		return err
	}
	if err := b.Append(e.TS, e.EventID, e.TenantID, e.TokenID, e.Action, e.Resource, e.BeforeDigest, e.AfterDigest); err != nil {
		return err
	}
	return b.Send()
}

// Events lists the trail of tenantID (every tenant when empty) from since on, oldest first,
// at most limit rows.
func Events(ctx context.Context, db *schema.DB, tenantID string, since time.Time, limit int) ([]Event, error) {
	rows, err := db.Conn.Query(ctx, `SELECT event_ts, event_id, tenant_id, token_id, action, resource, before_digest, after_digest
		FROM `+tables.AuditEvents+` WHERE (? = '' OR tenant_id = ?) AND event_ts >= ?
		ORDER BY event_ts, event_id LIMIT ?`, tenantID, tenantID, since.UTC(), limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.TS, &e.EventID, &e.TenantID, &e.TokenID, &e.Action, &e.Resource, &e.BeforeDigest, &e.AfterDigest); err != nil {
			return nil, err
		}
		e.TS = e.TS.UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}
