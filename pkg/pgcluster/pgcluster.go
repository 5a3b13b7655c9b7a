// Package pgcluster finds the local PostgreSQL server binaries and runs them
// as the right OS user. It is shared by the test kit (a throw-away cluster
// per test process) and the local stack of `make run` (a persistent
// cluster under .data/), which differ only in lifetime and settings.
package pgcluster

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// InstallHint says what to install when no server binaries are found.
const InstallHint = "PostgreSQL server binaries not found (initdb, pg_ctl): install them with " +
	"`apt-get update && apt-get install -y postgresql`"

// ErrNotInstalled is returned by BinDir when no server binaries are found.
var ErrNotInstalled = errors.New(InstallHint)

// BinDir locates initdb/pg_ctl: pg_config --bindir, the newest
// /usr/lib/postgresql/*/bin, then PATH.
func BinDir() (string, error) {
	has := func(dir string) bool {
		for _, b := range []string{"initdb", "pg_ctl"} {
			if fi, err := os.Stat(filepath.Join(dir, b)); err != nil || fi.IsDir() {
				return false
			}
		}
		return true
	}
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		if dir := strings.TrimSpace(string(out)); has(dir) {
			return dir, nil
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return major(dirs[i]) > major(dirs[j]) })
	for _, d := range dirs {
		if has(d) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		if dir := filepath.Dir(p); has(dir) {
			return dir, nil
		}
	}
	return "", ErrNotInstalled
}

func major(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

// ServerUser is the OS user the server must run as: "postgres" when we are
// root (PostgreSQL refuses to run as root), else "" for the current user.
func ServerUser() string {
	if os.Geteuid() == 0 {
		return "postgres"
	}
	return ""
}

// Command runs argv as user when set (runuser, else su), else directly.
func Command(user string, argv ...string) *exec.Cmd {
	if user == "" {
		return exec.Command(argv[0], argv[1:]...)
	}
	if p, err := exec.LookPath("runuser"); err == nil {
		return exec.Command(p, append([]string{"-u", user, "--"}, argv...)...)
	}
	return exec.Command("su", user, "-s", "/bin/sh", "-c", ShellJoin(argv))
}

// ShellQuote quotes s for /bin/sh.
func ShellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// ShellJoin quotes and joins argv for /bin/sh.
func ShellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = ShellQuote(a)
	}
	return strings.Join(q, " ")
}
