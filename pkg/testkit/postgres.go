package testkit

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/pgcluster"
)

// EnvTestDatabaseURL names an admin URL of an existing server; when set,
// NewDatabase creates its databases there instead of starting a cluster.
const EnvTestDatabaseURL = "TEST_DATABASE_URL"

const installHint = pgcluster.InstallHint + ", or set " + EnvTestDatabaseURL +
	" to an admin URL such as postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// cluster is the private PostgreSQL instance of this test process.
type cluster struct {
	dir      string   // temp dir: data/, socket, log, tls/
	tls      TLSFiles // the server's certificate (ssl=on) and its CA
	bindir   string
	port     int
	asUser   string // "postgres" when running as root, else ""
	adminURL string
	watchdog *os.Process
}

var (
	clusterMu   sync.Mutex
	clusterInst *cluster
	clusterErr  error
	clusterDone bool // started once (successfully or not); never restarted
)

// NewDatabase returns the URL of a fresh, empty database, dropped when the
// test ends. The URL works with pgdb.Open and any libpq-style driver.
func NewDatabase(t testing.TB) string {
	t.Helper()
	admin, err := adminURL()
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	name := "t_" + randomHex(8)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := execAdmin(ctx, admin, `CREATE DATABASE "`+name+`"`); err != nil {
		t.Fatalf("testkit: create database %s: %v", name, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// FORCE: tests may leave pools open; they must not block the drop.
		if err := execAdmin(ctx, admin, `DROP DATABASE IF EXISTS "`+name+`" WITH (FORCE)`); err != nil {
			t.Errorf("testkit: drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("testkit: parse admin url: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// DatabaseTLS is NewDatabase's URL with sslmode=verify-full against the
// private cluster's CA (sslrootcert): the server listens with TLS and a
// certificate for 127.0.0.1 and localhost. Returned too: the CA file. A
// server given by TEST_DATABASE_URL has no certificate testkit knows: the
// test is skipped there, saying so.
func DatabaseTLS(t testing.TB) (string, string) {
	t.Helper()
	if os.Getenv(EnvTestDatabaseURL) != "" {
		t.Skipf("testkit: %s names a server whose TLS certificate testkit does not know; the private cluster has one", EnvTestDatabaseURL)
	}
	plain := NewDatabase(t)
	clusterMu.Lock()
	ca := clusterInst.tls.CAFile
	clusterMu.Unlock()
	u, err := url.Parse(plain)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	q := u.Query()
	q.Set("sslmode", "verify-full")
	q.Set("sslrootcert", ca)
	u.RawQuery = q.Encode()
	return u.String(), ca
}

// adminURL is TEST_DATABASE_URL or the private cluster's admin URL.
func adminURL() (string, error) {
	if v := os.Getenv(EnvTestDatabaseURL); v != "" {
		return v, nil
	}
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if !clusterDone {
		clusterDone = true
		watchSignals()
		clusterInst, clusterErr = startCluster()
	}
	if clusterErr != nil {
		return "", clusterErr
	}
	if clusterInst == nil {
		return "", errors.New("private PostgreSQL cluster already stopped (testkit.Main has returned)")
	}
	return clusterInst.adminURL, nil
}

func execAdmin(ctx context.Context, admin, query string) error {
	db := sql.OpenDB(pgdriver.NewConnector(pgdriver.WithDSN(admin)))
	defer db.Close()
	_, err := db.ExecContext(ctx, query)
	return err
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never fails (Go ≥ 1.24)
	return hex.EncodeToString(b)
}

func startCluster() (*cluster, error) {
	bindir, err := pgcluster.BinDir()
	if err != nil {
		return nil, errors.New(installHint)
	}
	dir, err := os.MkdirTemp("", "testkit-pg-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir, bindir: bindir}
	if c.asUser = pgcluster.ServerUser(); c.asUser != "" {
		// PostgreSQL refuses to run as root.
		if err := chownTo(dir, c.asUser); err != nil {
			_ = os.RemoveAll(dir)
			return nil, err
		}
	}
	// Armed before initdb so even a process killed mid-setup leaves nothing.
	c.startWatchdog()
	data := filepath.Join(dir, "data")
	if out, err := c.run(filepath.Join(bindir, "initdb"), "-D", data, "-U", "postgres",
		"-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync"); err != nil {
		c.stop()
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	// TLS on (clients choose: the URLs testkit hands out use
	// sslmode=disable; DatabaseTLS's verify the server against its CA).
	tlsDir := filepath.Join(dir, "tls")
	if err := os.Mkdir(tlsDir, 0o700); err != nil {
		c.stop()
		return nil, err
	}
	if c.tls, err = writeTLS(tlsDir); err != nil {
		c.stop()
		return nil, err
	}
	if c.asUser != "" {
		for _, p := range []string{tlsDir, c.tls.CAFile, c.tls.CertFile, c.tls.KeyFile} {
			if err := chownTo(p, c.asUser); err != nil {
				c.stop()
				return nil, err
			}
		}
	}
	// Another test process may grab the port between probe and bind: retry.
	for attempt := 0; ; attempt++ {
		c.port, err = freePort()
		if err != nil {
			break
		}
		opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories=%s "+
			"-c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300 "+
			"-c ssl=on -c ssl_cert_file=%s -c ssl_key_file=%s",
			c.port, dir, c.tls.CertFile, c.tls.KeyFile)
		var out []byte
		out, err = c.run(filepath.Join(bindir, "pg_ctl"), "-D", data, "-l", filepath.Join(dir, "postgres.log"),
			"-o", opts, "-w", "-t", "60", "start")
		if err == nil {
			break
		}
		logTail, _ := os.ReadFile(filepath.Join(dir, "postgres.log"))
		err = fmt.Errorf("pg_ctl start: %v\n%s\n%s", err, out, logTail)
		if attempt == 4 {
			break
		}
	}
	if err != nil {
		c.stop()
		return nil, err
	}
	c.adminURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	if err := waitReady(c.adminURL, 30*time.Second); err != nil {
		c.stop()
		return nil, err
	}
	return c, nil
}

func waitReady(admin string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := execAdmin(ctx, admin, "SELECT 1")
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("postgres not accepting connections: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// command runs argv as the cluster's OS user.
func (c *cluster) command(argv ...string) *exec.Cmd { return pgcluster.Command(c.asUser, argv...) }

func (c *cluster) run(argv ...string) ([]byte, error) {
	cmd := c.command(argv...)
	cmd.Dir = c.dir
	return cmd.CombinedOutput()
}

// startWatchdog spawns a detached shell that stops the cluster and removes
// its directory once this process is gone, however it ended.
func (c *cluster) startWatchdog() {
	stop := pgcluster.ShellJoin(c.command(filepath.Join(c.bindir, "pg_ctl"), "-D", filepath.Join(c.dir, "data"),
		"-m", "immediate", "stop").Args)
	script := fmt.Sprintf("while kill -0 %d 2>/dev/null; do sleep 1; done; %s >/dev/null 2>&1; rm -rf %s",
		os.Getpid(), stop, pgcluster.ShellQuote(c.dir))
	cmd := exec.Command("/bin/sh", "-c", script)
	cmd.SysProcAttr = detachedProcAttr()
	if err := cmd.Start(); err == nil {
		c.watchdog = cmd.Process
		go func() { _ = cmd.Wait() }()
	}
}

func (c *cluster) stop() {
	_, _ = c.run(filepath.Join(c.bindir, "pg_ctl"), "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
	_ = os.RemoveAll(c.dir)
	if c.watchdog != nil {
		_ = c.watchdog.Kill()
	}
}

func stopCluster() {
	clusterMu.Lock()
	defer clusterMu.Unlock()
	if clusterInst != nil {
		clusterInst.stop()
		clusterInst = nil
	}
	clusterDone = true
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func chownTo(dir, username string) error {
	u, err := user.Lookup(username)
	if err != nil {
		return fmt.Errorf("running as root needs the %q user to own the cluster: %w (%s)", username, err, installHint)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return os.Chown(dir, uid, gid)
}
