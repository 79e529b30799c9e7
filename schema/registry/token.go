package registry

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"energy/schema/audit"
	"energy/schema/tables"
)

// Token is an API token as stored; the secret itself is never stored, only its SHA-256.
type Token struct {
	TokenID     string    `json:"tokenId"`
	TenantID    string    `json:"tenantId"`
	Scopes      []string  `json:"scopes"`
	Description string    `json:"description,omitempty"`
	CreatedTS   time.Time `json:"createdTs"`
	ExpiresTS   time.Time `json:"expiresTs,omitzero"` // zero: never expires
	RevokedTS   time.Time `json:"revokedTs,omitzero"` // zero: not revoked
}

// Active tells whether the token may be used at now.
func (t Token) Active(now time.Time) bool {
	return t.RevokedTS.IsZero() && (t.ExpiresTS.IsZero() || now.Before(t.ExpiresTS))
}

// secretPrefix makes secrets recognisable in logs and secret scanners.
const secretPrefix = "etk_"

// authCacheTTL bounds how long an authenticated token is trusted without asking ClickHouse
// again. A revocation made by another process (energyctl token revoke) takes effect sooner
// where WatchTokens runs: it drops every cached token when api_tokens changes.
const authCacheTTL = 5 * time.Second

type authEntry struct {
	token      Token
	read       time.Time // when it was read from ClickHouse
	until      time.Time
	generation uint64 // of api_tokens when the token was read
}

// tokenCache keeps authenticated tokens by secret hash. generation is the last api_tokens
// change WatchTokens saw: an entry read before a change is stale, even if it was put after
// the change was seen (its read may predate the revocation).
type tokenCache struct {
	mu         sync.Mutex
	entries    map[string]authEntry
	renewing   map[string]bool // hashes being read again ahead of their expiry
	generation atomic.Uint64
}

// get returns the cached token of hash, and renew when the caller should read it again in the
// background (see Store.renew): it was read more than half authCacheTTL ago and nobody is
// reading it yet.
func (c *tokenCache) get(hash string, now time.Time) (t Token, ok, renew bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[hash]
	if !ok || !now.Before(e.until) || e.generation != c.generation.Load() {
		return Token{}, false, false
	}
	if now.Sub(e.read) >= authCacheTTL/2 && !c.renewing[hash] {
		if c.renewing == nil {
			c.renewing = map[string]bool{}
		}
		c.renewing[hash] = true
		renew = true
	}
	return e.token, true, renew
}

// renewed ends the renewal of hash; a token no longer valid (revoked meanwhile) is dropped.
func (c *tokenCache) renewed(hash string, valid bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.renewing, hash)
	if !valid {
		delete(c.entries, hash)
	}
}

// put caches t, read from ClickHouse when the cache was at generation gen.
func (c *tokenCache) put(hash string, t Token, now time.Time, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > 10000 {
		c.entries = map[string]authEntry{}
	}
	until := now.Add(authCacheTTL)
	if !t.ExpiresTS.IsZero() && t.ExpiresTS.Before(until) {
		until = t.ExpiresTS // never trust a token past its expiry
	}
	c.entries[hash] = authEntry{token: t, read: now, until: until, generation: gen}
}

func (c *tokenCache) clear() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}

// WatchTokens polls api_tokens every interval until ctx ends and invalidates the cache of
// authenticated tokens whenever a token is written (created or revoked) by any process, so a
// revocation reaches this process within about one interval. Poll failures are retried.
func (s *Store) WatchTokens(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var latest uint64
		if err := s.db.Conn.QueryRow(ctx, "SELECT max(version) FROM "+tables.APITokens).Scan(&latest); err == nil {
			if latest != s.auth.generation.Load() {
				s.auth.generation.Store(latest)
				s.auth.clear()
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

func hashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken creates a token for tenantID (creating the tenant when new) and returns the
// secret, which is shown once and never stored. ttl 0 means no expiry.
func (s *Store) CreateToken(ctx context.Context, tenantID string, scopes []string, ttl time.Duration, description string) (string, Token, error) {
	if err := validID("tenantId", tenantID); err != nil {
		return "", Token{}, err
	}
	if len(scopes) == 0 {
		return "", Token{}, fieldErr("scopes", "at least one scope is required (one of %s)", scopeList())
	}
	for _, sc := range scopes {
		if !ValidScope(sc) {
			return "", Token{}, fieldErr("scopes", "unknown scope %q (allowed: %s)", sc, scopeList())
		}
	}
	if ttl < 0 {
		return "", Token{}, fieldErr("expires", "must not be negative")
	}
	if err := s.ensureTenant(ctx, tenantID); err != nil {
		return "", Token{}, err
	}
	idBytes := make([]byte, 8)
	secretBytes := make([]byte, 32)
	if _, err := rand.Read(idBytes); err != nil {
		return "", Token{}, err
	}
	if _, err := rand.Read(secretBytes); err != nil {
		return "", Token{}, err
	}
	now := s.now().UTC().Truncate(time.Second)
	t := Token{TokenID: hex.EncodeToString(idBytes), TenantID: tenantID, Scopes: scopes, Description: description, CreatedTS: now}
	if ttl > 0 {
		t.ExpiresTS = now.Add(ttl)
	}
	secret := secretPrefix + t.TokenID + "_" + base64.RawURLEncoding.EncodeToString(secretBytes)
	if err := s.writeToken(ctx, t, hashSecret(secret)); err != nil {
		return "", Token{}, err
	}
	if err := audit.Record(ctx, s.db, t.TenantID, audit.TokenCreate, "tokens/"+t.TokenID, nil, t); err != nil {
		return "", Token{}, err
	}
	return secret, t, nil
}

func scopeList() string {
	var parts []string
	for _, s := range Scopes {
		parts = append(parts, string(s))
	}
	return strings.Join(parts, ", ")
}

func (s *Store) writeToken(ctx context.Context, t Token, hash string) error {
	b, err := s.db.Conn.PrepareBatch(ctx, "INSERT INTO "+tables.APITokens+" (token_id, tenant_id, secret_hash, scopes, description, created_ts, expires_ts, revoked_ts, version)")
	if err != nil {
		return err
	}
	if err := b.Append(t.TokenID, t.TenantID, hash, t.Scopes, t.Description, t.CreatedTS, zeroEpoch(t.ExpiresTS), zeroEpoch(t.RevokedTS), s.version()); err != nil {
		return err
	}
	return b.Send()
}

// Authenticate returns the active token whose secret this is. Secrets are compared in
// constant time; the token id embedded in the secret only selects the row.
func (s *Store) Authenticate(ctx context.Context, secret string) (Token, error) {
	rest, ok := strings.CutPrefix(secret, secretPrefix)
	if !ok {
		return Token{}, ErrUnauthenticated
	}
	id, _, ok := strings.Cut(rest, "_")
	if !ok || len(id) != 16 {
		return Token{}, ErrUnauthenticated
	}
	hash := hashSecret(secret)
	now := s.now()
	if t, ok, renew := s.auth.get(hash, now); ok {
		if renew {
			go s.renew(id, hash)
		}
		return t, nil
	}
	gen := s.auth.generation.Load()
	t, storedHash, err := s.token(ctx, id)
	if err == ErrNotFound {
		return Token{}, ErrUnauthenticated
	}
	if err != nil {
		return Token{}, err
	}
	if subtle.ConstantTimeCompare([]byte(storedHash), []byte(hash)) != 1 || !t.Active(now) {
		return Token{}, ErrUnauthenticated
	}
	s.auth.put(hash, t, now, gen)
	return t, nil
}

// renew reads a cached token again before it expires, so that a client using it steadily never
// waits for ClickHouse (under ingest, the requests that found it expired waited for that read).
// The token is trusted for authCacheTTL from this read, as on a miss; one revoked or expired
// meanwhile is dropped, and a failed read leaves the entry to expire.
func (s *Store) renew(id, hash string) {
	now := s.now()
	gen := s.auth.generation.Load()
	ctx, cancel := context.WithTimeout(context.Background(), authCacheTTL)
	defer cancel()
	t, storedHash, err := s.token(ctx, id)
	if err != nil && err != ErrNotFound {
		s.auth.renewed(hash, true)
		return
	}
	valid := err == nil && subtle.ConstantTimeCompare([]byte(storedHash), []byte(hash)) == 1 && t.Active(now)
	if valid {
		s.auth.put(hash, t, now, gen)
	}
	s.auth.renewed(hash, valid)
}

func (s *Store) token(ctx context.Context, id string) (Token, string, error) {
	rows, err := s.db.Conn.Query(ctx, `SELECT token_id, tenant_id, secret_hash, scopes, description, created_ts, expires_ts, revoked_ts
		FROM `+tables.APITokens+` FINAL WHERE token_id = ?`, id)
	if err != nil {
		return Token{}, "", err
	}
	defer rows.Close()
	if !rows.Next() {
		return Token{}, "", notFoundOr(rows.Err())
	}
	var t Token
	var hash string
	if err := rows.Scan(&t.TokenID, &t.TenantID, &hash, &t.Scopes, &t.Description, &t.CreatedTS, &t.ExpiresTS, &t.RevokedTS); err != nil {
		return Token{}, "", err
	}
	t.ExpiresTS, t.RevokedTS = epochZero(t.ExpiresTS), epochZero(t.RevokedTS)
	return t, hash, nil
}

// RevokeToken revokes a token by id; revoking twice keeps the first revocation time.
func (s *Store) RevokeToken(ctx context.Context, tokenID string) (Token, error) {
	t, hash, err := s.token(ctx, tokenID)
	if err != nil {
		return Token{}, err
	}
	if t.RevokedTS.IsZero() {
		before := t
		t.RevokedTS = s.now().UTC().Truncate(time.Second)
		if err := s.writeToken(ctx, t, hash); err != nil {
			return Token{}, err
		}
		if err := audit.Record(ctx, s.db, t.TenantID, audit.TokenRevoke, "tokens/"+t.TokenID, before, t); err != nil {
			return Token{}, err
		}
	}
	s.auth.clear()
	return t, nil
}

// Tokens lists the tokens of a tenant (all tenants when tenantID is empty), oldest first.
func (s *Store) Tokens(ctx context.Context, tenantID string) ([]Token, error) {
	rows, err := s.db.Conn.Query(ctx, `SELECT token_id, tenant_id, scopes, description, created_ts, expires_ts, revoked_ts
		FROM `+tables.APITokens+` FINAL WHERE (? = '' OR tenant_id = ?) ORDER BY created_ts, token_id`, tenantID, tenantID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Token
	for rows.Next() {
		var t Token
		if err := rows.Scan(&t.TokenID, &t.TenantID, &t.Scopes, &t.Description, &t.CreatedTS, &t.ExpiresTS, &t.RevokedTS); err != nil {
			return nil, err
		}
		t.ExpiresTS, t.RevokedTS = epochZero(t.ExpiresTS), epochZero(t.RevokedTS)
		out = append(out, t)
	}
	return out, rows.Err()
}

// zeroEpoch stores an unset time as the epoch (DateTime cannot hold Go's zero time).
func zeroEpoch(t time.Time) time.Time {
	if t.IsZero() {
		return time.Unix(0, 0).UTC()
	}
	return t
}

func epochZero(t time.Time) time.Time {
	if t.Unix() <= 0 {
		return time.Time{}
	}
	return t.UTC()
}

func notFoundOr(err error) error {
	if err != nil {
		return err
	}
	return ErrNotFound
}

// String hides nothing secret; it helps logs.
func (t Token) String() string {
	return fmt.Sprintf("token %s of %s %v", t.TokenID, t.TenantID, t.Scopes)
}
