package stack

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/pgcluster"
)

// RepoRoot is the folder of the go.work workspace (the binaries are built
// from it).
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", err
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", fmt.Errorf("the stack is built from the go.work workspace, and there is none")
	}
	return filepath.Dir(w), nil
}

// BuildBinaries builds every service, the gateway, the broker and the
// webhook receiver (StartReceiver) from the workspace at root into dir
// (what Options.BinDir names).
func BuildBinaries(root, dir string) error {
	args := []string{"build", "-o", dir + "/"}
	for _, s := range append(ServiceNames(), "gateway") {
		args = append(args, "./services/"+s+"/cmd/"+s)
	}
	args = append(args, "./tools/cmd/broker", "./tools/cmd/webhook-echo")
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building binaries: %v\n%s", err, out)
	}
	return nil
}

// LastLines is the last n lines of s.
func LastLines(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestRun is a test package's whole-suite TestMain: fresh binaries, a
// private stack on free ports, the tests, and the stack log's tail when
// they fail.
type TestRun struct {
	// Name prefixes the temporary folder (binaries, data, stack.log).
	Name string
	// ClientID and ClientSecret are the bootstrap client's credentials.
	ClientID, ClientSecret string
	// ExtraEnv is added to every process's environment.
	ExtraEnv []string
	// PgBouncer runs the services behind PgBouncer in transaction pooling
	// mode (Options.PgBouncer) where pgbouncer is installed; without it the
	// run is direct, with a note, unless ACCT_REQUIRE_PGBOUNCER=1 (CI),
	// which fails it.
	PgBouncer bool
	// OnFailure, if set, is given the whole stack log after the tests
	// failed (after its last 80 lines were printed).
	OnFailure func(log string)
}

// Main builds the binaries into a fresh temporary folder (the test never
// depends on an earlier `make build`), starts the stack (PostgreSQL at
// TEST_DATABASE_URL if set, else a private cluster), hands it to started,
// runs m and stops the stack. It returns m's exit code (1 if the stack
// did not start), for os.Exit.
func (r TestRun) Main(m *testing.M, started func(*Stack)) int {
	root, err := RepoRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "acct-"+r.Name+"-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	bin := filepath.Join(tmp, "bin")
	if err := BuildBinaries(root, bin); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	logs, err := os.Create(filepath.Join(tmp, "stack.log"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer logs.Close()
	bouncer := r.PgBouncer && os.Getenv("TEST_DATABASE_URL") == ""
	if bouncer && !pgcluster.HasPgBouncer() {
		if os.Getenv("ACCT_REQUIRE_PGBOUNCER") == "1" {
			fmt.Fprintf(os.Stderr, "%s: %s, and ACCT_REQUIRE_PGBOUNCER=1\n", r.Name, pgcluster.PgBouncerHint)
			return 1
		}
		fmt.Fprintf(os.Stderr, "%s: %s: the services connect to PostgreSQL directly\n", r.Name, pgcluster.PgBouncerHint)
		bouncer = false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	st, err := Start(ctx, Options{
		BinDir:                bin,
		DataDir:               filepath.Join(tmp, "data"),
		DatabaseURL:           os.Getenv("TEST_DATABASE_URL"),
		PGPort:                FreePort(),
		BrokerPort:            FreePort(),
		FreeServicePorts:      true,
		GatewayAddr:           fmt.Sprintf("127.0.0.1:%d", FreePort()),
		BootstrapClientID:     r.ClientID,
		BootstrapClientSecret: r.ClientSecret,
		Logs:                  logs,
		ExtraEnv:              r.ExtraEnv,
		PgBouncer:             bouncer,
	})
	if err != nil {
		b, _ := os.ReadFile(logs.Name())
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n--- stack log ---\n%s\n", err, LastLines(string(b), 80))
		return 1
	}
	started(st)
	code := m.Run()
	st.Stop()
	if code != 0 {
		b, _ := os.ReadFile(logs.Name())
		fmt.Fprintf(os.Stderr, "--- stack log (tail) ---\n%s\n", LastLines(string(b), 80))
		if r.OnFailure != nil {
			r.OnFailure(string(b))
		}
	}
	return code
}
