package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"energy/schema/registry"
)

func TestStationAndSitePutFromFlagsAndFile(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := stationPut(ctx, c.args("07149", "--tenant", "acme", "--name", "Paris-Orly", "--lat", "48.72", "--lon", "2.38"), &out); err != nil {
		t.Fatal(err)
	}
	if err := stationPut(ctx, c.args("W2", "--tenant", "acme", "--name", "Nowhere", "--lat", "95"), &out); err == nil || !strings.Contains(err.Error(), "latitude") {
		t.Fatalf("latitude 95: %v", err)
	}
	out.Reset()
	if err := stations.getCommand(ctx, c.args("07149", "--tenant", "acme"), &out); err != nil || !strings.Contains(out.String(), "Paris-Orly") {
		t.Fatalf("station get: %v %s", err, out.String())
	}
	if err := tariffPut(ctx, c.args("HPHC-2024", "--tenant", "acme", "--file", writeFile(t, "t.json", hphcJSON)), &out); err != nil {
		t.Fatal(err)
	}

	// Flags alone.
	if err := sitePut(ctx, c.args("S1", "--tenant", "acme", "--customer-id", "C-1", "--person-id", "P-1", "--station", "07149",
		"--tariff", "HPHC-2024", "--heating", "GAS"), &out); err != nil {
		t.Fatal(err)
	}
	s, err := c.reg.Site(ctx, "acme", "S1")
	want := registry.Site{TenantID: "acme", SiteID: "S1", SiteCustomerID: "C-1", PersonCustomerID: "P-1", Timezone: "Europe/Paris",
		WeatherStationID: "07149", TariffID: "HPHC-2024", HeatingFluid: "GAS"}
	if err != nil || s != want {
		t.Fatalf("site from flags: %+v %v", s, err)
	}
	// A file, with a flag overriding one of its fields.
	file := writeFile(t, "s.json", `{"siteCustomerId": "C-2", "personCustomerId": "P-2", "timezone": "Europe/Brussels", "heatingFluid": "ELEC"}`)
	out.Reset()
	if err := sitePut(ctx, c.args("S2", "--tenant", "acme", "--file", file, "--heating", "NONE"), &out); err != nil {
		t.Fatal(err)
	}
	var printed registry.Site
	if err := json.Unmarshal(out.Bytes(), &printed); err != nil || printed.Timezone != "Europe/Brussels" || printed.HeatingFluid != "NONE" {
		t.Fatalf("site put printed %s (%v)", out.String(), err)
	}
	out.Reset()
	if err := sites.getCommand(ctx, c.args("S2", "--tenant", "acme"), &out); err != nil || !strings.Contains(out.String(), `"siteCustomerId": "C-2"`) {
		t.Fatalf("site get: %v %s", err, out.String())
	}

	for _, bad := range []struct {
		args    []string
		mention string
	}{
		{[]string{"S3", "--tenant", "acme", "--timezone", "Mars/Olympus"}, "timezone"},
		{[]string{"S3", "--tenant", "acme", "--tariff", "NOPE"}, "tariffId"},
		{[]string{"S3", "--tenant", "acme", "--station", "99999"}, "weatherStationId"},
		{[]string{"S3", "--tenant", "acme", "--customer-id", "C-1", "--person-id", "P-1"}, "siteCustomerId"},
		{[]string{"S3", "--tenant", "acme", "--heating", "COAL"}, "heatingFluid"},
		{[]string{"S3", "--tenant", "acme", "--file", writeFile(t, "bad.json", `{"timezone": 1}`)}, "timezone"},
		{[]string{"--tenant", "acme"}, "site id"},
		{[]string{"S3"}, "--tenant"},
	} {
		if err := sitePut(ctx, c.args(bad.args...), &out); err == nil || !strings.Contains(err.Error(), bad.mention) {
			t.Errorf("site put %v: %v, want an error naming %s", bad.args, err, bad.mention)
		}
	}
	if err := sites.getCommand(ctx, c.args("S3", "--tenant", "acme"), &out); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a rejected site exists: %v", err)
	}
}
