package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"energy/schema"
	"energy/schema/registry"
)

// energyctl token create|list|revoke manages API tokens directly in the store: the secret is
// printed once, alone on standard output, and only its SHA-256 is kept.

func tokenCreate(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	c := newTenantCommand("token create")
	fs := c.fs
	fs.SetOutput(stderr)
	scopes := fs.String("scopes", "", "comma-separated scopes: collect, read, targets, advices, admin (admin implies all)")
	expires := fs.String("expires", "", "lifetime, for example 720h or 30d; empty or 0: never expires")
	description := fs.String("description", "", "what the token is for (shown by token list)")
	c.usage("usage: energyctl token create --tenant T --scopes read,collect [--expires 720h] [--description TEXT]")
	if err := c.parse(args); err != nil {
		return err
	}
	var list []string
	for _, s := range strings.Split(*scopes, ",") {
		if s = strings.TrimSpace(s); s != "" {
			list = append(list, s)
		}
	}
	for _, s := range list {
		if !registry.ValidScope(s) {
			return fmt.Errorf("--scopes: unknown scope %q (allowed: collect, read, targets, advices, admin)", s)
		}
	}
	if len(list) == 0 {
		return errors.New("--scopes is required: one or more of collect, read, targets, advices, admin")
	}
	ttl, err := parseLifetime(*expires)
	if err != nil {
		return fmt.Errorf("--expires: %w", err)
	}
	var secret string
	var tok registry.Token
	err = c.withStore(ctx, func(db *schema.DB) error {
		secret, tok, err = registry.New(db).CreateToken(ctx, *c.tenant, list, ttl, *description)
		return err
	})
	if err != nil {
		return rejected("token", "", err)
	}
	expiry := "never expires"
	if !tok.ExpiresTS.IsZero() {
		expiry = "expires " + tok.ExpiresTS.Format(time.RFC3339)
	}
	fmt.Fprintf(stderr, "created token %s of tenant %s, scopes %s, %s; the secret below is shown only once\n",
		tok.TokenID, tok.TenantID, strings.Join(tok.Scopes, ","), expiry)
	_, err = fmt.Fprintln(stdout, secret)
	return err
}

// parseLifetime reads a Go duration (720h, 90m) or a number of days (30d); "" and "0" mean
// no expiry.
func parseLifetime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > 36500 {
			return 0, fmt.Errorf("%q is not a number of days from 1 to 36500", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%q is not a positive duration (for example 720h or 30d)", s)
	}
	return d, nil
}

func tokenList(ctx context.Context, args []string, stdout io.Writer) error {
	fs, store := newStoreFlagSet("token list")
	tenant := fs.String("tenant", os.Getenv("ENERGY_TENANT"), "only this tenant's tokens (env ENERGY_TENANT); default all")
	asJSON := fs.Bool("json", false, "print JSON instead of a table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	toks, err := registry.New(db).Tokens(ctx, *tenant)
	if err != nil {
		return err
	}
	if *asJSON {
		if toks == nil {
			toks = []registry.Token{}
		}
		return printResource(stdout, toks)
	}
	now := time.Now()
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTENANT\tSCOPES\tCREATED\tEXPIRES\tSTATE\tDESCRIPTION")
	for _, t := range toks {
		state := "active"
		switch {
		case !t.RevokedTS.IsZero():
			state = "revoked " + t.RevokedTS.Format(time.RFC3339)
		case !t.Active(now):
			state = "expired"
		}
		exp := "never"
		if !t.ExpiresTS.IsZero() {
			exp = t.ExpiresTS.Format(time.RFC3339)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", t.TokenID, t.TenantID, strings.Join(t.Scopes, ","),
			t.CreatedTS.Format(time.RFC3339), exp, state, t.Description)
	}
	return tw.Flush()
}

func tokenRevoke(ctx context.Context, args []string, stderr io.Writer) error {
	fs, store := newStoreFlagSet("token revoke")
	setUsage(fs, "usage: energyctl token revoke ID   (the id is the part after etk_ in the secret, or from token list)")
	id, err := parseCommand(fs, args, "token id (see energyctl token list)")
	if err != nil {
		return err
	}
	// A whole secret is accepted too: its id is the part between "etk_" and the next "_".
	if rest, ok := strings.CutPrefix(id, "etk_"); ok {
		id, _, _ = strings.Cut(rest, "_")
	}
	db, err := store.open(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	tok, err := registry.New(db).RevokeToken(ctx, id)
	if errors.Is(err, registry.ErrNotFound) {
		return fmt.Errorf("no token with id %q (see energyctl token list)", id)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "token %s of tenant %s revoked at %s (other energyd processes stop accepting it within 5 s)\n",
		tok.TokenID, tok.TenantID, tok.RevokedTS.Format(time.RFC3339))
	return nil
}
