package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// cliStore is a fresh test database reached the way energyctl reaches it (--clickhouse-dsn),
// plus a registry on it to check what the commands stored.
type cliStore struct {
	dsn string
	reg *registry.Store
}

func newCLIStore(t *testing.T) cliStore {
	t.Helper()
	dsn := chtest.DSN(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := schema.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Migrate(ctx, nil); err != nil {
		t.Fatal(err)
	}
	return cliStore{dsn: dsn, reg: registry.New(db)}
}

// args prefixes the store flag.
func (c cliStore) args(a ...string) []string {
	return append([]string{"--clickhouse-dsn", c.dsn}, a...)
}

func TestTokenCreatePrintsTheSecretAloneAndRevokeStopsIt(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	var out, errOut bytes.Buffer
	if err := tokenCreate(ctx, c.args("--tenant", "acme", "--scopes", "read, collect", "--expires", "30d", "--description", "dashboards"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSuffix(out.String(), "\n")
	if !strings.HasPrefix(secret, "etk_") || strings.ContainsAny(secret, " \n\t") {
		t.Fatalf("stdout %q is not the secret alone", out.String())
	}
	if strings.Contains(errOut.String(), secret) {
		t.Fatal("the secret also went to stderr")
	}
	tok, err := c.reg.Authenticate(ctx, secret)
	if err != nil {
		t.Fatalf("the printed secret does not authenticate: %v", err)
	}
	if tok.TenantID != "acme" || strings.Join(tok.Scopes, ",") != "read,collect" || tok.Description != "dashboards" {
		t.Fatalf("token %+v", tok)
	}
	if left := time.Until(tok.ExpiresTS); left < 29*24*time.Hour || left > 30*24*time.Hour+time.Minute {
		t.Fatalf("expires in %v, want 30 days", left)
	}
	var tenants uint64
	if err := c.reg.DB().Conn.QueryRow(ctx, "SELECT count() FROM tenants FINAL WHERE tenant_id = 'acme'").Scan(&tenants); err != nil || tenants != 1 {
		t.Fatalf("tenant acme created %d times (%v), want once", tenants, err)
	}

	var list bytes.Buffer
	if err := tokenList(ctx, c.args("--tenant", "acme"), &list); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list.String(), tok.TokenID) || !strings.Contains(list.String(), "active") || strings.Contains(list.String(), secret) {
		t.Fatalf("token list:\n%s", list.String())
	}

	errOut.Reset()
	if err := tokenRevoke(ctx, c.args(tok.TokenID), &errOut); err != nil {
		t.Fatal(err)
	}
	// A fresh store (another process) no longer accepts it.
	if _, err := registry.New(c.reg.DB()).Authenticate(ctx, secret); !errors.Is(err, registry.ErrUnauthenticated) {
		t.Fatalf("revoked token still authenticates: %v", err)
	}
	list.Reset()
	if err := tokenList(ctx, c.args(), &list); err != nil || !strings.Contains(list.String(), "revoked") {
		t.Fatalf("token list after revoke (%v):\n%s", err, list.String())
	}
	if err := tokenRevoke(ctx, c.args("0000000000000000"), &errOut); err == nil || !strings.Contains(err.Error(), "no token") {
		t.Fatalf("revoking an unknown id: %v", err)
	}
}

func TestTokenCreateRejectsBadValuesNamingThem(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	cases := []struct {
		args    []string
		mention string
	}{
		{[]string{"--scopes", "read"}, "--tenant"},
		{[]string{"--tenant", "bad tenant", "--scopes", "read"}, "--tenant"},
		{[]string{"--tenant", "acme"}, "--scopes"},
		{[]string{"--tenant", "acme", "--scopes", "read,write"}, `"write"`},
		{[]string{"--tenant", "acme", "--scopes", "read", "--expires", "soon"}, "--expires"},
		{[]string{"--tenant", "acme", "--scopes", "read", "--expires", "-5h"}, "--expires"},
	}
	for _, tc := range cases {
		var out, errOut bytes.Buffer
		err := tokenCreate(ctx, c.args(tc.args...), &out, &errOut)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("token create %v: error %v, want one naming %s", tc.args, err, tc.mention)
		}
		if out.Len() != 0 {
			t.Errorf("token create %v printed %q", tc.args, out.String())
		}
	}
	if toks, _ := c.reg.Tokens(ctx, ""); len(toks) != 0 {
		t.Fatalf("rejected commands created %d tokens", len(toks))
	}
}
