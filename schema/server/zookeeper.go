package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ZooKeeper is a single ZooKeeper server launched as a foreground Java child process from
// Debian's zookeeper package (no service manager): the coordinator of a local cluster's
// Replicated tables and ON CLUSTER DDL.
type ZooKeeper struct {
	Dir  string // holds zoo.cfg, log4j.properties and data/
	Port int    // client port on 127.0.0.1

	childProcess
}

// zooKeeperJars is where Debian's zookeeper package installs its classes and their libraries.
const zooKeeperJars = "/usr/share/java"

// StartZooKeeper launches ZooKeeper with its data in dir on port (0: a free one) and waits
// until it answers "imok". The heap is capped: the machine is shared with the ClickHouse nodes.
// Writes are not fsynced (forceSync=no): this ZooKeeper serves throwaway local clusters, whose
// ON CLUSTER DDL then runs about twice as fast.
func StartZooKeeper(ctx context.Context, dir string, port int) (*ZooKeeper, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		return nil, errors.New("no java in PATH: install Debian's zookeeper package (it brings a Java runtime)")
	}
	jar := filepath.Join(zooKeeperJars, "zookeeper.jar")
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("no %s: install Debian's zookeeper package", jar)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	if port == 0 {
		if port, err = freePort(); err != nil {
			return nil, err
		}
	}
	cfg := fmt.Sprintf("tickTime=2000\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
		"admin.enableServer=false\n4lw.commands.whitelist=ruok,stat\nmaxClientCnxns=0\nforceSync=no\n", filepath.Join(dir, "data"), port)
	if err := os.WriteFile(filepath.Join(dir, "zoo.cfg"), []byte(cfg), 0o644); err != nil {
		return nil, err
	}
	// Found on the class path (dir comes first): warnings only, on the console.
	logCfg := "log4j.rootLogger=WARN, CONSOLE\nlog4j.appender.CONSOLE=org.apache.log4j.ConsoleAppender\n" +
		"log4j.appender.CONSOLE.layout=org.apache.log4j.PatternLayout\nlog4j.appender.CONSOLE.layout.ConversionPattern=%d %p %c: %m%n\n"
	if err := os.WriteFile(filepath.Join(dir, "log4j.properties"), []byte(logCfg), 0o644); err != nil {
		return nil, err
	}
	cmd := exec.Command(java, "-Xmx128m", "-XX:+UseSerialGC",
		"-cp", dir+":"+jar+":"+filepath.Join(zooKeeperJars, "*"),
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", filepath.Join(dir, "zoo.cfg"))
	cmd.Dir = dir
	proc, err := startChild(cmd, "zookeeper", 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("start zookeeper: %w", err)
	}
	z := &ZooKeeper{Dir: dir, Port: port, childProcess: proc}
	if err := proc.waitReady(ctx, 100*time.Millisecond, z.ruok); err != nil {
		return nil, err
	}
	return z, nil
}

// Addr is host:port of the client port.
func (z *ZooKeeper) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(z.Port)) }

// ruok sends ZooKeeper's "are you ok" command; a serving server answers "imok".
func (z *ZooKeeper) ruok() error {
	c, err := net.DialTimeout("tcp", z.Addr(), time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("ruok")); err != nil {
		return err
	}
	line, _ := bufio.NewReader(c).ReadString('\n')
	if !strings.HasPrefix(line, "imok") {
		return fmt.Errorf("zookeeper answered %q to ruok", line)
	}
	return nil
}

// Stop sends SIGTERM and waits for the JVM to exit (SIGKILL after 10 s).
func (z *ZooKeeper) Stop() error { return z.stop() }
