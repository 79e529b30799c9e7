package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"energy/schema/registry"
)

func TestHeatingPutAndGet(t *testing.T) {
	c := newCLIStore(t)
	ctx := context.Background()
	var out bytes.Buffer
	if err := heatingGet(ctx, c.args("S1", "--tenant", "acme"), &out); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("get on an unknown site: %v", err)
	}
	if err := sitePut(ctx, c.args("S1", "--tenant", "acme"), &out); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := heatingGet(ctx, c.args("S1", "--tenant", "acme"), &out); err != nil || !strings.Contains(out.String(), `"offset": 1320`) || !strings.Contains(out.String(), `"FROST_PROTECTION": 7`) {
		t.Fatalf("default schedule: %v %s", err, out.String())
	}
	file := writeFile(t, "s.json", `{"heatingSchedule":{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":0,"temperature":"ECO"},{"offset":420,"temperature":"COMFORT"}]}}`)
	out.Reset()
	if err := heatingPut(ctx, c.args("S1", "--tenant", "acme", "--file", file), nil, &out); err != nil {
		t.Fatal(err)
	}
	got, stored, err := c.reg.HeatingSchedule(ctx, "acme", "S1")
	if err != nil || !stored || got.Temperatures[registry.ModeComfort] != 20 || len(got.WeeklyCalendar) != 2 || got.WeeklyCalendar[1].Offset != 420 {
		t.Fatalf("stored %+v %v %v", got, stored, err)
	}
	bad := `{"temperatures":{"COMFORT":20,"ECO":17},"weeklyCalendar":[{"offset":0,"temperature":"ECO"},{"offset":10080,"temperature":"COMFORT"}]}`
	err = heatingPut(ctx, c.args("S1", "--tenant", "acme", "--file", "-"), strings.NewReader(bad), &out)
	if err == nil || !strings.Contains(err.Error(), "weeklyCalendar[1].offset") {
		t.Fatalf("bad offset: %v", err)
	}
	if err := heatingPut(ctx, c.args("S9", "--tenant", "acme", "--file", file), nil, &out); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("unknown site: %v", err)
	}
}
