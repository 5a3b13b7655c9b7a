package e2e

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

func TestMain(m *testing.M) {
	// The reaper (Ryuk) is an image pulled from a registry; containers are
	// removed by t.Cleanup instead. It must be set before testcontainers is first used.
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if os.Getenv("E2E_BASE_URL") == "" {
		if err := useLocalDaemonHost(); err != nil {
			fmt.Fprintf(os.Stderr, "e2e: %v\n", err)
		}
	}
	os.Exit(m.Run())
}

// useLocalDaemonHost fixes where mapped ports are dialled. Inside a container
// (/.dockerenv) testcontainers assumes the daemon runs on the container's host
// and dials the default gateway; when the daemon runs in this very machine
// (its name is our hostname, as on this CI machine) published ports are on
// loopback instead. An explicit TESTCONTAINERS_HOST_OVERRIDE always wins.
func useLocalDaemonHost() error {
	if _, set := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); set {
		return nil
	}
	if _, err := os.Stat("/.dockerenv"); err != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return fmt.Errorf("docker client: %w", err)
	}
	defer cli.Close()
	info, err := cli.Info(ctx, client.InfoOptions{})
	if err != nil {
		return fmt.Errorf("docker info: %w", err)
	}
	host, err := os.Hostname()
	if err != nil {
		return fmt.Errorf("hostname: %w", err)
	}
	if info.Info.Name == host {
		os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	return nil
}
