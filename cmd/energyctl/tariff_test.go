package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"energy/schema/registry"
)

const hphcJSON = `{"option": "HPHC", "dialHeadings": {"1": "HC", "2": "HP"}, "headingGroups": {"HC": "HC", "HP": "HP"},
 "timeOfUse": [{"from": "22:00", "to": "06:00", "heading": "HC"}], "defaultHeading": "HP",
 "prices": [{"validFrom": "2024-02-01", "byHeading": {"HC": 0.2068, "HP": 0.2700}}],
 "standingCharges": [{"validFrom": "2024-02-01", "yearly": {"subscription": 151.20, "cta": 21.35}}],
 "carbonCoefficient": 0.052}`

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTariffPutAndGet(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := tariffPut(ctx, c.args("HPHC-2024", "--tenant", "acme", "--file", writeFile(t, "t.json", hphcJSON)), &out); err != nil {
		t.Fatal(err)
	}
	tr, err := c.reg.Tariff(ctx, "acme", "HPHC-2024")
	if err != nil || tr.Prices[0].ByHeading["HP"] != 0.27 || tr.StandingCharges[0].Yearly["cta"] != 21.35 {
		t.Fatalf("stored tariff %+v %v", tr, err)
	}
	out.Reset()
	if err := tariffs.getCommand(ctx, c.args("--tenant", "acme", "HPHC-2024"), &out); err != nil {
		t.Fatal(err)
	}
	var got registry.Tariff
	if err := json.Unmarshal(out.Bytes(), &got); err != nil || got.TariffID != "HPHC-2024" || got.DefaultHeading != "HP" {
		t.Fatalf("tariff get printed %s (%v)", out.String(), err)
	}
	if err := tariffs.getCommand(ctx, c.args("--tenant", "globex", "HPHC-2024"), &out); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("another tenant's tariff: %v", err)
	}
}

// A bad value makes the command fail with the field named, and nothing is stored.
func TestTariffPutRejectsBadFieldsNamingThem(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	cases := []struct{ name, body, mention string }{
		{"negative price", strings.Replace(hphcJSON, `"HP": 0.2700`, `"HP": -0.27`, 1), "prices[0].byHeading.HP"},
		{"bad date", strings.Replace(hphcJSON, `"validFrom": "2024-02-01", "byHeading"`, `"validFrom": "2024-13-01", "byHeading"`, 1), "prices[0].validFrom"},
		{"unknown heading", strings.Replace(hphcJSON, `"heading": "HC"`, `"heading": "HPJR"`, 1), "timeOfUse[0].heading"},
		{"unknown field", strings.Replace(hphcJSON, `"option"`, `"colour": "red", "option"`, 1), "colour"},
		{"wrong type", strings.Replace(hphcJSON, `"carbonCoefficient": 0.052`, `"carbonCoefficient": "low"`, 1), "carbonCoefficient"},
		{"id differs", strings.Replace(hphcJSON, `{"option"`, `{"tariffId": "OTHER", "option"`, 1), "tariffId"},
	}
	for _, tc := range cases {
		var out bytes.Buffer
		err := tariffPut(ctx, c.args("T1", "--tenant", "acme", "--file", writeFile(t, "t.json", tc.body)), &out)
		if err == nil || !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("%s: error %v, want one naming %s", tc.name, err, tc.mention)
		}
	}
	if err := tariffPut(ctx, c.args("T1", "--tenant", "acme"), new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "--file") {
		t.Errorf("no --file: %v", err)
	}
	if _, err := c.reg.Tariff(ctx, "acme", "T1"); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("a rejected tariff was stored: %v", err)
	}
}
