package main

import (
	"context"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"energy/schema"
	"energy/schema/registry"
	"energy/schema/server"
)

// oddPassword holds every character that breaks a password pasted into a URL.
const oddPassword = `p@ss/w:rd%#?`

// startPasswordServer launches a ClickHouse whose only user is energy, with oddPassword.
func startPasswordServer(t *testing.T) string {
	t.Helper()
	bin, prefix, err := server.FindServerBinary()
	if err != nil {
		t.Fatalf("this test launches its own ClickHouse: %v", err)
	}
	dir := t.TempDir()
	config := `<yandex>
 <logger><console>1</console><level>warning</level></logger>
 <listen_host>127.0.0.1</listen_host>
 <mark_cache_size>67108864</mark_cache_size>
 <timezone>UTC</timezone>
 <users_config>config.xml</users_config>
 <profiles><default><poll_interval>1</poll_interval></default></profiles>
 <users><energy><password>` + oddPassword + `</password><networks><ip>::/0</ip></networks><profile>default</profile><quota>default</quota></energy></users>
 <quotas><default/></quotas>
</yandex>
`
	if err := os.WriteFile(filepath.Join(dir, "config.xml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	args := append(append([]string{}, prefix...), "--config-file="+filepath.Join(dir, "config.xml"), "--",
		"--path="+filepath.Join(dir, "data")+"/", "--tcp_port="+port)
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_ = cmd.Wait()
	})
	return addr
}

// A password with '@', '/', ':', '%', '#' and '?' works end to end when given apart from the
// DSN (here as a mounted secret file): energyd migrates, gets ready and serves requests.
func TestPasswordWithURLCharactersWorks(t *testing.T) {
	addr := startPasswordServer(t)
	secret := filepath.Join(t.TempDir(), "password")
	if err := os.WriteFile(secret, []byte(oddPassword+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ENERGY_CLICKHOUSE_USER", "energy")
	t.Setenv("ENERGY_CLICKHOUSE_PASSWORD_FILE", secret)
	unsetenv(t, "ENERGY_CLICKHOUSE_PASSWORD")
	dsn := "clickhouse://" + addr + "/energy"
	d := startEnergydWith(t, buildEnergyd(t), "--clickhouse-dsn", dsn, "--data-dir", t.TempDir())

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	full, err := schema.Credentials{User: "energy", Password: oddPassword}.Apply(dsn)
	if err != nil {
		t.Fatal(err)
	}
	db, err := schema.Open(ctx, full, "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	token, _, err := registry.New(db).CreateToken(ctx, "acme", []string{"admin"}, 0, "")
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPut, "http://"+d.addr+"/v2/sites/S1", strings.NewReader(`{"timezone":"Europe/Paris"}`))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("PUT site through energyd: %d", resp.StatusCode)
	}
	if s, err := registry.New(db).Site(ctx, "acme", "S1"); err != nil || s.Timezone != "Europe/Paris" {
		t.Fatalf("stored site %+v %v", s, err)
	}

	// The same password pasted into the DSN is what used to break: the URL does not parse.
	if _, err := schema.Open(ctx, "clickhouse://energy:"+oddPassword+"@"+addr+"/energy", ""); err == nil {
		t.Fatal("the password pasted raw into the DSN worked: this test no longer shows the problem")
	}
}
