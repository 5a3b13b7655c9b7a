// Command postgres-entrypoint is the PID 1 of the offline PostgreSQL image
// (deploy/postgres-offline). No base image can be pulled on the build machine, so
// the image is assembled from the host's PostgreSQL packages and this static
// binary replaces the official image's shell entrypoint. It honours the same
// variables as the official image: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB,
// POSTGRES_HOST_AUTH_METHOD and PGDATA.
//
// On an empty PGDATA it runs initdb (superuser POSTGRES_USER, password auth for
// every TCP client) and creates POSTGRES_DB in single-user mode, then runs the
// server in the foreground on 0.0.0.0:5432, forwarding stop signals to it.
package main

import (
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
)

// readyLine is printed once the server is started; wait strategies may match it.
const readyLine = "postgres-entrypoint: server started"

// config is the whole configuration of the entrypoint, read once from the
// environment.
type config struct {
	User       string
	Password   string
	DB         string
	AuthMethod string
	DataDir    string
	BinDir     string
	SocketDir  string
}

func loadConfig(getenv func(string) string) (config, error) {
	c := config{
		User:       getenv("POSTGRES_USER"),
		Password:   getenv("POSTGRES_PASSWORD"),
		DB:         getenv("POSTGRES_DB"),
		AuthMethod: getenv("POSTGRES_HOST_AUTH_METHOD"),
		DataDir:    getenv("PGDATA"),
		BinDir:     getenv("PG_BINDIR"),
		SocketDir:  getenv("PG_SOCKET_DIR"),
	}
	if c.User == "" {
		c.User = "postgres"
	}
	if c.DB == "" {
		c.DB = c.User
	}
	if c.AuthMethod == "" {
		c.AuthMethod = "scram-sha-256"
	}
	if c.DataDir == "" {
		c.DataDir = "/var/lib/postgresql/data"
	}
	if c.BinDir == "" {
		c.BinDir = "/usr/lib/postgresql/15/bin"
	}
	if c.SocketDir == "" {
		c.SocketDir = "/var/run/postgresql"
	}
	switch c.AuthMethod {
	case "scram-sha-256", "md5", "password":
		// Like the official image: refuse to start an unprotected server by accident.
		if c.Password == "" {
			return c, errors.New("POSTGRES_PASSWORD is required (or set POSTGRES_HOST_AUTH_METHOD=trust)")
		}
	case "trust":
	default:
		return c, fmt.Errorf("POSTGRES_HOST_AUTH_METHOD %q: want scram-sha-256, md5, password or trust", c.AuthMethod)
	}
	return c, nil
}

// quoteIdent quotes a SQL identifier the way PostgreSQL's quote_ident does.
func quoteIdent(s string) string {
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// hbaRule is appended to pg_hba.conf: initdb only lets loopback TCP clients in,
// while other containers connect over the Docker network.
func hbaRule(method string) string {
	return fmt.Sprintf("\n# added by postgres-entrypoint: every TCP client, like the official image\nhost all all all %s\n", method)
}

// initialized reports whether dir already holds a cluster.
func initialized(dir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, "PG_VERSION"))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	return false, err
}

func run(cmd *exec.Cmd) error {
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", strings.Join(cmd.Args, " "), err)
	}
	return nil
}

func initCluster(c config) error {
	if err := os.MkdirAll(c.DataDir, 0o700); err != nil {
		return fmt.Errorf("create PGDATA: %w", err)
	}
	// initdb refuses a group- or world-readable data directory.
	if err := os.Chmod(c.DataDir, 0o700); err != nil {
		return fmt.Errorf("chmod PGDATA: %w", err)
	}
	pw, err := os.CreateTemp("", "pwfile")
	if err != nil {
		return fmt.Errorf("password file: %w", err)
	}
	defer os.Remove(pw.Name())
	if _, err := io.WriteString(pw, c.Password+"\n"); err != nil {
		return fmt.Errorf("password file: %w", err)
	}
	if err := pw.Close(); err != nil {
		return fmt.Errorf("password file: %w", err)
	}
	args := []string{"-D", c.DataDir, "-U", c.User, "-E", "UTF8", "--locale=C",
		"--auth-local=trust", "--auth-host=" + c.AuthMethod}
	if c.Password != "" {
		args = append(args, "--pwfile="+pw.Name())
	}
	if err := run(exec.Command(filepath.Join(c.BinDir, "initdb"), args...)); err != nil {
		return err
	}
	hba, err := os.OpenFile(filepath.Join(c.DataDir, "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	if _, err := io.WriteString(hba, hbaRule(c.AuthMethod)); err != nil {
		hba.Close()
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	if err := hba.Close(); err != nil {
		return fmt.Errorf("pg_hba.conf: %w", err)
	}
	if c.DB == "postgres" {
		return nil
	}
	// Single-user mode needs no client binary and no temporary TCP server.
	single := exec.Command(filepath.Join(c.BinDir, "postgres"), "--single", "-D", c.DataDir, "postgres")
	single.Stdin = strings.NewReader("CREATE DATABASE " + quoteIdent(c.DB) + ";\n")
	return run(single)
}

// forwardedSignal maps a signal received by PID 1 to the one sent to the server.
// SIGTERM becomes SIGINT (PostgreSQL's "fast" shutdown), as the official image's
// STOPSIGNAL does: "smart" shutdown would wait for the services' pooled
// connections, which never close by themselves.
func forwardedSignal(s os.Signal) os.Signal {
	if s == syscall.SIGTERM {
		return syscall.SIGINT
	}
	return s
}

func serve(c config, extra []string) (int, error) {
	args := append([]string{"-D", c.DataDir, "-c", "listen_addresses=*", "-c", "unix_socket_directories=" + c.SocketDir}, extra...)
	cmd := exec.Command(filepath.Join(c.BinDir, "postgres"), args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGHUP)
	if err := cmd.Start(); err != nil {
		return 1, fmt.Errorf("start postgres: %w", err)
	}
	log.Print(readyLine)
	go func() {
		for s := range sigs {
			_ = cmd.Process.Signal(forwardedSignal(s))
		}
	}()
	err := cmd.Wait()
	signal.Stop(sigs)
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode(), nil
	}
	if err != nil {
		return 1, fmt.Errorf("postgres: %w", err)
	}
	return 0, nil
}

func main() {
	log.SetFlags(0)
	c, err := loadConfig(os.Getenv)
	if err != nil {
		log.Fatalf("postgres-entrypoint: %v", err)
	}
	done, err := initialized(c.DataDir)
	if err != nil {
		log.Fatalf("postgres-entrypoint: inspect PGDATA: %v", err)
	}
	if !done {
		log.Printf("postgres-entrypoint: initialising %s (user %s, database %s)", c.DataDir, c.User, c.DB)
		if err := initCluster(c); err != nil {
			log.Fatalf("postgres-entrypoint: init: %v", err)
		}
	}
	// Arguments are extra server options, e.g. `-c fsync=off`, like the official image's CMD.
	extra := os.Args[1:]
	if len(extra) > 0 && extra[0] == "postgres" {
		extra = extra[1:]
	}
	code, err := serve(c, extra)
	if err != nil {
		log.Printf("postgres-entrypoint: %v", err)
	}
	os.Exit(code)
}
