package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"energy/schema/chtest"
)

// --pprof-listen accepts loopback addresses only, naming the flag; it is off by default.
func TestPprofListenIsLoopbackOnly(t *testing.T) {
	unsetenv(t, "ENERGY_PPROF_LISTEN")
	if cfg, err := loadConfig(nil); err != nil || cfg.PprofListen != "" {
		t.Fatalf("default: %q (%v), want no profiling listener", cfg.PprofListen, err)
	}
	for _, ok := range []string{"127.0.0.1:6060", "[::1]:6060", "127.0.0.2:0"} {
		if _, err := loadConfig([]string{"--pprof-listen", ok}); err != nil {
			t.Errorf("--pprof-listen %s: %v", ok, err)
		}
	}
	for _, bad := range []string{":6060", "0.0.0.0:6060", "[::]:6060", "10.0.0.5:6060", "localhost:6060", "127.0.0.1"} {
		_, err := loadConfig([]string{"--pprof-listen", bad})
		if err == nil || !strings.Contains(err.Error(), "--pprof-listen") {
			t.Errorf("--pprof-listen %s: %v, want an error naming the flag", bad, err)
		}
	}
}

// The profiles are served on their own loopback listener, never on the API's.
func TestPprofOnItsOwnListener(t *testing.T) {
	pprofAddr := freeAddr(t)
	d := startEnergydWith(t, buildEnergyd(t), "--clickhouse-dsn", chtest.DSN(t), "--data-dir", t.TempDir(), "--pprof-listen", pprofAddr)
	resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "goroutine profile:") {
		t.Errorf("profiling listener: %d %.200s", resp.StatusCode, b)
	}
	if code, body := get("http://" + d.addr + "/debug/pprof/goroutine?debug=1"); code == http.StatusOK {
		t.Errorf("the API listener serves profiles: %d %.200s", code, body)
	}
}
