package registry

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"energy/schema"
)

func TestTokenSecretIsStoredOnlyAsItsSHA256(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"read", "collect"}, 0, "dashboard")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitN(secret, "_", 3)
	if len(parts) != 3 || parts[0] != "etk" || parts[1] != tok.TokenID {
		t.Fatalf("secret %q is not etk_<id>_<random>", secret)
	}
	random, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || len(random) < 32 {
		t.Fatalf("secret carries %d random bytes (%v), want at least 32", len(random), err)
	}

	var id, tenant, hash, scopes, desc string
	if err := s.db.Conn.QueryRow(ctx, `SELECT token_id, tenant_id, secret_hash, arrayStringConcat(scopes, ','), description
		FROM api_tokens`).Scan(&id, &tenant, &hash, &scopes, &desc); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(secret))
	if hash != hex.EncodeToString(sum[:]) {
		t.Fatalf("secret_hash %q is not the SHA-256 of the secret", hash)
	}
	for _, col := range []string{id, tenant, hash, scopes, desc} {
		if strings.Contains(col, parts[2]) || strings.Contains(col, secret) {
			t.Fatalf("a column of api_tokens holds the secret in clear: %q", col)
		}
	}
	if id != tok.TokenID || tenant != "acme" || scopes != "read,collect" || desc != "dashboard" {
		t.Fatalf("stored row %q %q %q %q", id, tenant, scopes, desc)
	}

	got, err := s.Authenticate(ctx, secret)
	if err != nil || got.TenantID != "acme" || strings.Join(got.Scopes, ",") != "read,collect" {
		t.Fatalf("Authenticate: %+v %v", got, err)
	}
}

// The token id in the secret only selects the row; the whole secret's hash must match, compared
// in constant time (subtle.ConstantTimeCompare in Authenticate).
func TestAuthenticateRejectsWrongSecrets(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	last := secret[len(secret)-1]
	flipped := byte('A')
	if last == 'A' {
		flipped = 'B'
	}
	bad := []string{
		"",
		"hello",
		secret[:len(secret)-1] + string(flipped), // same id, one character off
		secret + "x",                             // longer
		strings.TrimPrefix(secret, "etk_"),       // no prefix
		"etk_" + tok.TokenID,                     // id alone
		"etk_" + strings.Repeat("0", 16) + "_" + "whatever", // unknown id
		strings.ToUpper(secret),
	}
	for _, b := range bad {
		if _, err := s.Authenticate(ctx, b); !errors.Is(err, ErrUnauthenticated) {
			t.Errorf("Authenticate(%q) = %v, want ErrUnauthenticated", b, err)
		}
	}
	if _, err := s.Authenticate(ctx, secret); err != nil {
		t.Fatalf("the right secret: %v", err)
	}
}

func TestRevokedTokenStopsAuthenticatingAtOnce(t *testing.T) {
	s, now := newStore(t)
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil { // now cached
		t.Fatal(err)
	}
	revokedAt := *now
	if _, err := s.RevokeToken(ctx, tok.TokenID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("revoked token authenticates: %v", err)
	}
	// Revoking again keeps the first revocation time.
	*now = now.Add(time.Hour)
	again, err := s.RevokeToken(ctx, tok.TokenID)
	if err != nil || !again.RevokedTS.Equal(revokedAt) {
		t.Fatalf("second revocation: %v, revokedTs %v, want %v", err, again.RevokedTS, revokedAt)
	}
	list, err := s.Tokens(ctx, "acme")
	if err != nil || len(list) != 1 || !list[0].RevokedTS.Equal(revokedAt) || list[0].Active(*now) {
		t.Fatalf("Tokens after revocation: %+v %v", list, err)
	}
	if _, err := s.RevokeToken(ctx, "0000000000000000"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("revoking an unknown id: %v, want ErrNotFound", err)
	}
}

func TestExpiredTokenIsRejected(t *testing.T) {
	s, now := newStore(t)
	ctx := context.Background()
	created := *now
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"read"}, time.Hour, "")
	if err != nil {
		t.Fatal(err)
	}
	if !tok.ExpiresTS.Equal(created.Add(time.Hour)) {
		t.Fatalf("expiresTs %v, want %v", tok.ExpiresTS, created.Add(time.Hour))
	}
	*now = created.Add(time.Hour - time.Second)
	if _, err := s.Authenticate(ctx, secret); err != nil { // cached a second before expiry
		t.Fatalf("a second before expiry: %v", err)
	}
	*now = created.Add(time.Hour + time.Second)
	if _, err := s.Authenticate(ctx, secret); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("a second after expiry: %v, want ErrUnauthenticated (the auth cache must not outlive the token)", err)
	}
	list, _ := s.Tokens(ctx, "acme")
	if len(list) != 1 || !list[0].ExpiresTS.Equal(created.Add(time.Hour)) {
		t.Fatalf("listed expiry: %+v", list)
	}
}

func TestCreateTokenValidatesAndCreatesTheTenant(t *testing.T) {
	s, _ := newStore(t)
	ctx := context.Background()
	_, _, err := s.CreateToken(ctx, "acme", []string{"read", "write"}, 0, "")
	wantField(t, err, "scopes", `"write"`, "collect, read, targets, advices, admin")
	_, _, err = s.CreateToken(ctx, "acme", nil, 0, "")
	wantField(t, err, "scopes")
	_, _, err = s.CreateToken(ctx, "bad tenant", []string{"read"}, 0, "")
	wantField(t, err, "tenantId")
	_, _, err = s.CreateToken(ctx, "acme", []string{"read"}, -time.Hour, "")
	wantField(t, err, "expires")

	for i := 0; i < 2; i++ {
		if _, _, err := s.CreateToken(ctx, "acme", []string{"read"}, 0, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := s.CreateToken(ctx, "globex", []string{"admin"}, 0, ""); err != nil {
		t.Fatal(err)
	}
	var tenants uint64
	if err := s.db.Conn.QueryRow(ctx, "SELECT count() FROM tenants FINAL").Scan(&tenants); err != nil {
		t.Fatal(err)
	}
	if tenants != 2 {
		t.Fatalf("%d tenants, want 2 (created once each)", tenants)
	}
	acme, _ := s.Tokens(ctx, "acme")
	all, _ := s.Tokens(ctx, "")
	if len(acme) != 2 || len(all) != 3 {
		t.Fatalf("Tokens: %d for acme (want 2), %d in all (want 3)", len(acme), len(all))
	}
}

// A token revoked by another process (energyctl) stops working here as soon as WatchTokens
// sees api_tokens change, long before the cache's TTL (the test clock never advances it).
func TestRevocationByAnotherProcessReachesTheWatcher(t *testing.T) {
	s, _ := newStore(t)
	other := New(s.DB()) // energyctl: same database, its own cache
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.WatchTokens(ctx, 20*time.Millisecond)

	secret, tok, err := s.CreateToken(ctx, "acme", []string{"read"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil { // now cached here
		t.Fatal(err)
	}
	if _, err := other.RevokeToken(ctx, tok.TokenID); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		_, err := s.Authenticate(ctx, secret)
		if errors.Is(err, ErrUnauthenticated) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if time.Now().After(deadline) {
			t.Fatal("a token revoked by another process still authenticates 3 s later")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Without a watcher the cached token survives another process's revocation (up to the TTL):
// the watcher test above is what proves revocations propagate.
func TestCacheWithoutWatcherKeepsTheToken(t *testing.T) {
	s, _ := newStore(t)
	other := New(s.DB())
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"read"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil {
		t.Fatal(err)
	}
	if _, err := other.RevokeToken(ctx, tok.TokenID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Authenticate(ctx, secret); err != nil {
		t.Fatalf("without a watcher the cached token should still pass within its TTL: %v", err)
	}
}

// waitRenewals waits until no cached token of s is being read again in the background.
func waitRenewals(t *testing.T, s *Store) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		s.auth.mu.Lock()
		n := len(s.auth.renewing)
		s.auth.mu.Unlock()
		if n == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("a token renewal still runs after 10 s")
		}
	}
}

// A token used steadily is read again in the background once half its cache TTL has passed:
// requests never wait for ClickHouse to authenticate it, and a revocation by another process
// (no watcher here) is still seen by the next renewal, never trusted past a TTL from a read.
func TestSteadilyUsedTokenIsRenewedAhead(t *testing.T) {
	s, now := newStore(t)
	other := New(s.DB())
	ctx := context.Background()
	secret, tok, err := s.CreateToken(ctx, "acme", []string{"read"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	start := *now
	authenticate := func(at time.Duration) (int64, error) {
		t.Helper()
		*now = start.Add(at)
		cctx, queries := schema.CountQueries(ctx)
		_, err := s.Authenticate(cctx, secret)
		n := queries()
		waitRenewals(t, s)
		return n, err
	}
	if n, err := authenticate(0); err != nil || n != 1 {
		t.Fatalf("first use: %d queries, %v; want 1 read", n, err)
	}
	if n, err := authenticate(3 * time.Second); err != nil || n != 0 { // renewed in the background
		t.Fatalf("at 3 s: %d queries, %v; want the cached token", n, err)
	}
	if n, err := authenticate(6 * time.Second); err != nil || n != 0 { // past the first read's TTL
		t.Fatalf("at 6 s: %d queries, %v; want the token renewed at 3 s, without a query", n, err)
	}
	if _, err := other.RevokeToken(ctx, tok.TokenID); err != nil {
		t.Fatal(err)
	}
	if _, err := authenticate(9 * time.Second); err != nil { // within the 6 s renewal's TTL; renews again
		t.Fatalf("at 9 s: %v; want the cached token (read at 6 s)", err)
	}
	if _, err := authenticate(9 * time.Second); !errors.Is(err, ErrUnauthenticated) {
		t.Fatalf("after the renewal that read the revocation: %v, want ErrUnauthenticated", err)
	}
}
