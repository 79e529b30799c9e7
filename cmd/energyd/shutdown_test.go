package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/chtest"
	"energy/schema/registry"
)

// daemon is an energyd binary running against a test database.
type daemon struct {
	cmd    *exec.Cmd
	addr   string
	lines  chan string // stderr, line by line
	exited chan error
}

// buildEnergyd compiles this package once per test into dir.
func buildEnergyd(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "energyd")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build energyd: %v\n%s", err, out)
	}
	return bin
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startEnergyd runs the binary on a free port with the DSN and waits for /readyz.
func startEnergyd(t *testing.T, bin, dsn string) *daemon {
	t.Helper()
	return startEnergydWith(t, bin, "--clickhouse-dsn", dsn, "--data-dir", t.TempDir())
}

// startEnergydWith runs the binary on a free port with args and waits for /readyz.
func startEnergydWith(t *testing.T, bin string, args ...string) *daemon {
	t.Helper()
	d := launchEnergyd(t, bin, args...)
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + d.addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("energyd not ready within 60 s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// launchEnergyd runs the binary on a free port with args, without waiting.
func launchEnergyd(t *testing.T, bin string, args ...string) *daemon {
	t.Helper()
	d := &daemon{addr: freeAddr(t), lines: make(chan string, 1000), exited: make(chan error, 1)}
	d.cmd = exec.Command(bin, append([]string{"--listen", d.addr, "--advice-listen", ""}, args...)...)
	stderr, err := d.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			select {
			case d.lines <- sc.Text():
			default: // nobody reads that far back
			}
		}
		d.exited <- d.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = d.cmd.Process.Kill()
	})
	return d
}

// waitLine waits for a stderr line containing s.
func (d *daemon) waitLine(t *testing.T, s string, within time.Duration) {
	t.Helper()
	timeout := time.After(within)
	for {
		select {
		case l := <-d.lines:
			if strings.Contains(l, s) {
				return
			}
		case <-timeout:
			t.Fatalf("energyd did not log %q within %v", s, within)
		}
	}
}

// waitInFlight polls /metrics until energy_http_requests_in_flight of the main listener is at
// least n.
func (d *daemon) waitInFlight(t *testing.T, n int, within time.Duration) {
	t.Helper()
	gauge := regexp.MustCompile(`(?m)^energy_http_requests_in_flight\{listener="main"\} (\d+)`)
	deadline := time.Now().Add(within)
	for {
		resp, err := http.Get("http://" + d.addr + "/metrics")
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if m := gauge.FindSubmatch(b); m != nil {
				if v, _ := strconv.Atoi(string(m[1])); v >= n {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("energyd never had %d requests in flight within %v", n, within)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSIGTERMFinishesInFlightRequests sends SIGTERM while a PUT is half received: energyd
// stops accepting connections, lets the request finish (its site is stored and the client gets
// 200), then exits 0.
func TestSIGTERMFinishesInFlightRequests(t *testing.T) {
	dsn := chtest.DSN(t)
	bin := buildEnergyd(t)
	d := startEnergyd(t, bin, dsn)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	db, err := schema.Open(ctx, dsn, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := registry.New(db)
	secret, _, err := reg.CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}

	conn, err := net.Dial("tcp", d.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"timezone":"Europe/Paris","heatingFluid":"GAS"}`
	half := len(body) / 2
	fmt.Fprintf(conn, "PUT /v2/sites/INFLIGHT HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		d.addr, secret, len(body), body[:half])

	// Go drops a request that it has not started reading when shutdown begins: wait until ours
	// is inside the handlers (the in-flight gauge counts it and the /metrics request itself).
	d.waitInFlight(t, 2, 30*time.Second)
	if err := d.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	d.waitLine(t, "shutting down", 30*time.Second)
	// The listener closes: new connections are refused while the request is in flight.
	refused := false
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		c, err := net.DialTimeout("tcp", d.addr, time.Second)
		if err != nil {
			refused = true
			break
		}
		c.Close()
	}
	if !refused {
		t.Error("energyd still accepts connections after SIGTERM")
	}
	select {
	case err := <-d.exited:
		t.Fatalf("energyd exited (%v) with a request in flight", err)
	default:
	}

	if _, err := io.WriteString(conn, body[half:]); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("in-flight request got no response: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("in-flight request: %d %s", resp.StatusCode, b)
	}
	select {
	case err := <-d.exited:
		if err != nil {
			t.Fatalf("energyd exit after SIGTERM: %v, want status 0", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("energyd still running 30 s after its last request finished")
	}
	s, err := reg.Site(ctx, "acme", "INFLIGHT")
	if err != nil || s.HeatingFluid != "GAS" {
		t.Fatalf("the in-flight PUT's site: %+v %v", s, err)
	}
}
