package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// energy_store_up is 0 before the store is opened, 1 while pings succeed, 0 when one fails or
// hangs past the timeout.
func TestStoreUpFollowsThePing(t *testing.T) {
	var p storeProbe
	g := p.gauge()
	if v := testutil.ToFloat64(g); v != 0 {
		t.Errorf("before the store is opened: %v, want 0", v)
	}
	p.watch(func(context.Context) error { return nil })
	if v := testutil.ToFloat64(g); v != 1 {
		t.Errorf("answering store: %v, want 1", v)
	}
	p.watch(func(context.Context) error { return errors.New("connection refused") })
	if v := testutil.ToFloat64(g); v != 0 {
		t.Errorf("refusing store: %v, want 0", v)
	}
	p.watch(func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() })
	start := time.Now()
	if v := testutil.ToFloat64(g); v != 0 || time.Since(start) > storePingTimeout+time.Second {
		t.Errorf("hanging store: %v after %s, want 0 within the ping timeout", v, time.Since(start))
	}
}

// The data directory's file system: a size, and free bytes within it; nothing for a
// directory that does not exist (rather than a 0 that would read as a full disk).
func TestDataDirUsage(t *testing.T) {
	reg := prometheus.NewRegistry()
	reg.MustRegister(newDataDirUsage(t.TempDir()))
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, f := range families {
		got[f.GetName()] = f.GetMetric()[0].GetGauge().GetValue()
	}
	size, free := got["energy_data_dir_size_bytes"], got["energy_data_dir_free_bytes"]
	if size <= 0 || free <= 0 || free > size {
		t.Errorf("size %v, free %v: want 0 < free <= size", size, free)
	}
	missing := prometheus.NewRegistry()
	missing.MustRegister(newDataDirUsage(t.TempDir() + "/absent"))
	if n, err := testutil.GatherAndCount(missing); err != nil || n != 0 {
		t.Errorf("absent directory: %d series (%v), want none", n, err)
	}
}
