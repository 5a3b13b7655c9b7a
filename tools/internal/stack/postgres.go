package stack

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strings"
	"time"

	"github.com/acctsuite/acct/pkg/pgcluster"
)

// ErrNoPostgres is returned when no PostgreSQL server binaries are found.
var ErrNoPostgres = pgcluster.ErrNotInstalled

// Postgres is a private PostgreSQL cluster in a data folder, managed with the
// local initdb/pg_ctl. It runs as the `postgres` OS user when we are root,
// because PostgreSQL refuses to run as root.
type Postgres struct {
	Dir   string
	Port  int
	bin   string
	runAs string // OS user to run as, "" for the current user
	opts  string // the server options of pg_ctl start -o
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// StartPostgres initialises dir on first use and starts the server on port.
func StartPostgres(ctx context.Context, dir string, port int, logf func(string, ...any)) (*Postgres, error) {
	bin, err := pgcluster.BinDir()
	if err != nil {
		return nil, fmt.Errorf("%w, or point DATABASE_URL at an existing server", err)
	}
	pg := &Postgres{Dir: dir, Port: port, bin: bin, runAs: pgcluster.ServerUser()}
	if pg.runAs != "" {
		if _, err := user.Lookup(pg.runAs); err != nil {
			return nil, fmt.Errorf("running as root needs the %q OS user (created by the postgresql package): %w", pg.runAs, err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	if pg.runAs != "" {
		// The server user must own the cluster and traverse every parent.
		if err := exec.Command("chown", "-R", pg.runAs, dir).Run(); err != nil {
			return nil, fmt.Errorf("chown %s: %w", dir, err)
		}
		for p := filepath.Dir(dir); p != "/" && p != "."; p = filepath.Dir(p) {
			if st, err := os.Stat(p); err == nil && st.Mode().Perm()&0o001 == 0 {
				_ = os.Chmod(p, st.Mode().Perm()|0o001)
			}
		}
	}
	if !fileExists(filepath.Join(dir, "PG_VERSION")) {
		logf("initialising PostgreSQL cluster in %s", dir)
		if out, err := pg.cmd("initdb", "-D", dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb: %w\n%s", err, out)
		}
	}
	if portInUse(port) {
		return nil, fmt.Errorf("port %d is already in use: stop what listens there or set DEVSTACK_PG_PORT", port)
	}
	pg.opts = fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200", port)
	if err := pg.start(); err != nil {
		return nil, err
	}
	return pg, nil
}

func (p *Postgres) start() error {
	logFile := filepath.Join(p.Dir, "server.log")
	if out, err := p.cmd("pg_ctl", "-D", p.Dir, "-l", logFile, "-o", p.opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		tail, _ := os.ReadFile(logFile)
		return fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, lastLines(string(tail), 20))
	}
	return nil
}

// Restart stops the server in mode ("fast": sessions are ended and
// in-flight transactions roll back; "immediate": no clean shutdown, crash
// recovery at the next start) and starts it again with the same options,
// after pause. Clients see their connections dropped, as in a failover.
func (p *Postgres) Restart(mode string, pause time.Duration) error {
	if mode != "fast" && mode != "immediate" {
		return fmt.Errorf("pg_ctl stop mode %q: want fast or immediate", mode)
	}
	if out, err := p.cmd("pg_ctl", "-D", p.Dir, "-m", mode, "-w", "stop").CombinedOutput(); err != nil {
		return fmt.Errorf("pg_ctl stop -m %s: %w: %s", mode, err, out)
	}
	time.Sleep(pause)
	return p.start()
}

// AdminURL is the superuser URL of the cluster.
func (p *Postgres) AdminURL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", p.Port, db)
}

// EnsureDatabase creates db if it does not exist.
func (p *Postgres) EnsureDatabase(ctx context.Context, name string) error {
	return EnsureDatabase(ctx, p.AdminURL("postgres"), name)
}

// Stop shuts the server down (fast mode: in-flight transactions roll back).
func (p *Postgres) Stop() error {
	out, err := p.cmd("pg_ctl", "-D", p.Dir, "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

func (p *Postgres) cmd(tool string, args ...string) *exec.Cmd {
	return pgcluster.Command(p.runAs, append([]string{filepath.Join(p.bin, tool)}, args...)...)
}

// EnsureDatabase creates database name on the server at adminURL if missing.
func EnsureDatabase(ctx context.Context, adminURL, name string) error {
	db, err := sql.Open("pgx", adminURL)
	if err != nil {
		return err
	}
	defer db.Close()
	var exists bool
	if err := db.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("check database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := db.ExecContext(ctx, `CREATE DATABASE "`+strings.ReplaceAll(name, `"`, `""`)+`"`); err != nil {
		return fmt.Errorf("create database %s: %w", name, err)
	}
	return nil
}

func portInUse(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 300*time.Millisecond)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
