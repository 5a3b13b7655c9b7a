package pgcluster

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// PgBouncerHint says how to get PgBouncer.
const PgBouncerHint = "PgBouncer is not installed (apt-get install pgbouncer)"

// ErrNoPgBouncer is returned when no pgbouncer binary is found.
var ErrNoPgBouncer = errors.New(PgBouncerHint)

// BouncerDB is one database entry of a PgBouncer: clients connect to Alias
// and are served by server connections to DBName on the upstream server,
// each set up with ConnectQuery (e.g. the search_path of the service that
// uses the alias) before any client uses it.
type BouncerDB struct {
	Alias        string
	DBName       string
	ConnectQuery string
}

// PgBouncer is a PgBouncer process in transaction pooling mode in front of
// one PostgreSQL server, with trust authentication on loopback (tests and
// local stacks only).
type PgBouncer struct {
	Dir  string
	Port int
	cmd  *exec.Cmd
	done chan struct{}
}

// pgBouncerBin is the pgbouncer binary's path ("" when none is found).
func pgBouncerBin() string {
	if p, err := exec.LookPath("pgbouncer"); err == nil {
		return p
	}
	for _, p := range []string{"/usr/sbin/pgbouncer", "/usr/local/sbin/pgbouncer"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// HasPgBouncer reports whether pgbouncer is installed.
func HasPgBouncer() bool { return pgBouncerBin() != "" }

// StartPgBouncer writes a configuration into dir and starts PgBouncer on
// 127.0.0.1:port in pool_mode=transaction, in front of the server at
// upstreamHost:upstreamPort (user postgres), serving dbs. Like the server,
// it runs as ServerUser when we are root (PgBouncer refuses root too).
func StartPgBouncer(dir string, port int, upstreamHost string, upstreamPort int, dbs []BouncerDB) (*PgBouncer, error) {
	bin := pgBouncerBin()
	if bin == "" {
		return nil, ErrNoPgBouncer
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var ini strings.Builder
	ini.WriteString("[databases]\n")
	for _, d := range dbs {
		if strings.ContainsAny(d.ConnectQuery, "'\n") || strings.ContainsAny(d.Alias+d.DBName, " ='\n") {
			return nil, fmt.Errorf("pgbouncer: database entry %q: no quotes, spaces or newlines", d.Alias)
		}
		fmt.Fprintf(&ini, "%s = host=%s port=%d dbname=%s", d.Alias, upstreamHost, upstreamPort, d.DBName)
		if d.ConnectQuery != "" {
			fmt.Fprintf(&ini, " connect_query='%s'", d.ConnectQuery)
		}
		ini.WriteString("\n")
	}
	fmt.Fprintf(&ini, `[pgbouncer]
listen_addr = 127.0.0.1
listen_port = %d
unix_socket_dir =
auth_type = trust
auth_file = %s
admin_users = postgres
pool_mode = transaction
max_client_conn = 2000
default_pool_size = 20
server_login_retry = 1
logfile = %s
`, port, filepath.Join(dir, "userlist.txt"), filepath.Join(dir, "pgbouncer.log"))
	if err := os.WriteFile(filepath.Join(dir, "userlist.txt"), []byte(`"postgres" ""`+"\n"), 0o644); err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "pgbouncer.ini")
	if err := os.WriteFile(conf, []byte(ini.String()), 0o644); err != nil {
		return nil, err
	}
	user := ServerUser()
	if user != "" {
		if out, err := exec.Command("chown", "-R", user, dir).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("chown %s: %w: %s", dir, err, out)
		}
		// It must traverse every parent to read its configuration.
		for p := filepath.Dir(dir); p != "/" && p != "."; p = filepath.Dir(p) {
			if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o001 == 0 {
				_ = os.Chmod(p, st.Mode().Perm()|0o001)
			}
		}
	}
	cmd := Command(user, bin, conf)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start pgbouncer: %w", err)
	}
	b := &PgBouncer{Dir: dir, Port: port, cmd: cmd, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(b.done) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
		if err == nil {
			_ = c.Close()
			return b, nil
		}
		select {
		case <-b.done:
			log, _ := os.ReadFile(filepath.Join(dir, "pgbouncer.log"))
			return nil, fmt.Errorf("pgbouncer exited: %s%s", stderr.String(), log)
		default:
		}
		if time.Now().After(deadline) {
			b.Stop()
			return nil, fmt.Errorf("pgbouncer did not listen on port %d within 15 s", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// URL is a client URL of the alias through the bouncer.
func (b *PgBouncer) URL(alias string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", b.Port, alias)
}

// Stop ends the process (runuser passes the signal on) and waits for it.
func (b *PgBouncer) Stop() {
	if b == nil || b.cmd.Process == nil {
		return
	}
	_ = b.cmd.Process.Signal(syscall.SIGTERM) // immediate shutdown; SIGINT would wait for clients
	select {
	case <-b.done:
	case <-time.After(10 * time.Second):
		_ = b.cmd.Process.Kill()
		<-b.done
	}
}
