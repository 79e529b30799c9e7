package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"energy/schema/audit"
)

// energyctl names its operator in the trail and prints it: the token it creates and revokes
// are two rows of the tenant, with the creation's after digest the revocation's before.
func TestAuditListsCommandLineChanges(t *testing.T) {
	c := newCLIStore(t)
	ctx := audit.WithActor(context.Background(), audit.CommandLine("ops"))
	var out, errOut bytes.Buffer
	if err := tokenCreate(ctx, c.args("--tenant", "audited", "--scopes", "read"), &out, &errOut); err != nil {
		t.Fatal(err)
	}
	secret := strings.TrimSpace(out.String())
	if err := tokenRevoke(ctx, c.args(secret), &errOut); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := auditList(ctx, c.args("--tenant", "audited", "--json"), &out); err != nil {
		t.Fatal(err)
	}
	var events []audit.Event
	if err := json.Unmarshal(out.Bytes(), &events); err != nil {
		t.Fatalf("audit --json: %v\n%s", err, out.String())
	}
	id := strings.SplitN(strings.TrimPrefix(secret, "etk_"), "_", 2)[0]
	if len(events) != 2 || events[0].Action != audit.TokenCreate || events[1].Action != audit.TokenRevoke ||
		events[0].Resource != "tokens/"+id || events[1].Resource != "tokens/"+id ||
		events[0].TokenID != "energyctl:ops" || events[1].TokenID != "energyctl:ops" ||
		events[0].AfterDigest != events[1].BeforeDigest || events[0].BeforeDigest != "" {
		t.Fatalf("audit events %+v", events)
	}
	out.Reset()
	if err := auditList(ctx, c.args("--since", time.Now().Add(time.Hour).Format(time.RFC3339)), &out); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(strings.TrimSpace(out.String()), "\n"); len(lines) != 1 || !strings.HasPrefix(lines[0], "WHEN") {
		t.Fatalf("audit from an hour ahead: %q, want the header alone", out.String())
	}
	if err := auditList(ctx, c.args("--since", "yesterday"), &out); err == nil || !strings.Contains(err.Error(), "--since") {
		t.Fatalf("--since yesterday: %v, want an error naming --since", err)
	}
}
