package stack

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ErrNoPostgres is returned when no PostgreSQL server binaries are found.
var ErrNoPostgres = errors.New("PostgreSQL server binaries (initdb, pg_ctl) not found: install them with " +
	"`sudo apt-get update && sudo apt-get install -y postgresql` (Debian/Ubuntu), " +
	"or point DATABASE_URL at an existing server")

// Postgres is a private PostgreSQL cluster in a data folder, managed with the
// local initdb/pg_ctl. It runs as the `postgres` OS user when we are root,
// because PostgreSQL refuses to run as root.
type Postgres struct {
	Dir   string
	Port  int
	bin   string
	runAs string // OS user to run as, "" for the current user
}

// FindPostgresBin returns the directory holding initdb and pg_ctl.
func FindPostgresBin() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if fileExists(filepath.Join(dir, "initdb")) {
			return dir, nil
		}
	}
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(matches, func(i, j int) bool { return versionOf(matches[i]) > versionOf(matches[j]) })
	for _, m := range matches {
		if fileExists(filepath.Join(m, "initdb")) && fileExists(filepath.Join(m, "pg_ctl")) {
			return m, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", ErrNoPostgres
}

func versionOf(binDir string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return v
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// StartPostgres initialises dir on first use and starts the server on port.
func StartPostgres(ctx context.Context, dir string, port int, logf func(string, ...any)) (*Postgres, error) {
	bin, err := FindPostgresBin()
	if err != nil {
		return nil, err
	}
	pg := &Postgres{Dir: dir, Port: port, bin: bin}
	if os.Geteuid() == 0 {
		if _, err := user.Lookup("postgres"); err != nil {
			return nil, fmt.Errorf("running as root needs the `postgres` OS user (created by the postgresql package): %w", err)
		}
		pg.runAs = "postgres"
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
		if out, err := pg.cmd(ctx, "initdb", "-D", dir, "-U", "postgres", "--auth=trust", "--encoding=UTF8", "--locale=C").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("initdb: %w\n%s", err, out)
		}
	}
	if portInUse(port) {
		return nil, fmt.Errorf("port %d is already in use: stop what listens there or set DEVSTACK_PG_PORT", port)
	}
	opts := fmt.Sprintf("-p %d -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=200", port)
	logFile := filepath.Join(dir, "server.log")
	if out, err := pg.cmd(ctx, "pg_ctl", "-D", dir, "-l", logFile, "-o", opts, "-w", "-t", "60", "start").CombinedOutput(); err != nil {
		tail, _ := os.ReadFile(logFile)
		return nil, fmt.Errorf("pg_ctl start: %w\n%s\n%s", err, out, lastLines(string(tail), 20))
	}
	return pg, nil
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
	out, err := p.cmd(context.Background(), "pg_ctl", "-D", p.Dir, "-m", "fast", "-w", "stop").CombinedOutput()
	if err != nil {
		return fmt.Errorf("pg_ctl stop: %w: %s", err, out)
	}
	return nil
}

func (p *Postgres) cmd(ctx context.Context, tool string, args ...string) *exec.Cmd {
	path := filepath.Join(p.bin, tool)
	if p.runAs != "" {
		return exec.CommandContext(ctx, "runuser", append([]string{"-u", p.runAs, "--", path}, args...)...)
	}
	return exec.CommandContext(ctx, path, args...)
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
