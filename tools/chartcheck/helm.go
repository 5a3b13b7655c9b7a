package chartcheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// HelmVersion is the helm release built from the Go module proxy; mk/chart.mk pins the same one.
const HelmVersion = "v3.22.0"

// Helm runs a helm binary.
type Helm struct{ Bin string }

// FindHelm returns the helm to use: $HELM_BIN when set (mk/chart.mk sets it), else
// <cacheDir>/helm when present, else it builds helm into cacheDir with `go install` from the
// module proxy (several minutes on a cold build cache; later runs reuse the binary).
func FindHelm(ctx context.Context, cacheDir string, logf func(format string, args ...any)) (Helm, error) {
	if bin := os.Getenv("HELM_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return Helm{}, fmt.Errorf("HELM_BIN=%s: %w (run `make helm`)", bin, err)
		}
		return Helm{Bin: bin}, nil
	}
	bin := filepath.Join(cacheDir, "helm")
	if _, err := os.Stat(bin); err == nil {
		return Helm{Bin: bin}, nil
	}
	abs, err := filepath.Abs(cacheDir)
	if err != nil {
		return Helm{}, err
	}
	logf("building helm %s into %s from the Go module proxy (first run only, a few minutes)", HelmVersion, abs)
	cmd := exec.CommandContext(ctx, "go", "install", "helm.sh/helm/v3/cmd/helm@"+HelmVersion)
	// GOWORK=off: `go install pkg@version` must not see the workspace; GOFLAGS cleared for the same reason.
	cmd.Env = append(os.Environ(), "GOBIN="+abs, "GOWORK=off", "GOFLAGS=")
	if out, err := cmd.CombinedOutput(); err != nil {
		return Helm{}, fmt.Errorf("go install helm %s: %w\n%s", HelmVersion, err, out)
	}
	return Helm{Bin: bin}, nil
}

// Run executes helm with args and returns stdout; stderr is included in the error.
func (h Helm) Run(ctx context.Context, args ...string) ([]byte, error) {
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, h.Bin, args...)
	// helm must not touch a real cluster or the user's repositories.
	cmd.Env = append(os.Environ(), "KUBECONFIG="+os.DevNull, "HELM_CACHE_HOME="+os.TempDir()+"/acct-helm-cache",
		"HELM_CONFIG_HOME="+os.TempDir()+"/acct-helm-config", "HELM_DATA_HOME="+os.TempDir()+"/acct-helm-data")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return stdout.Bytes(), fmt.Errorf("helm %v: %w\n%s%s", args, err, stdout.String(), stderr.String())
		}
		return nil, fmt.Errorf("helm %v: %w", args, err)
	}
	return stdout.Bytes(), nil
}

// Template renders chartDir with the given values files (release "acct", namespace "acct").
func (h Helm) Template(ctx context.Context, chartDir string, valueFiles ...string) ([]byte, error) {
	args := []string{"template", "acct", chartDir, "--namespace", "acct"}
	for _, f := range valueFiles {
		args = append(args, "--values", f)
	}
	return h.Run(ctx, args...)
}

// Lint runs `helm lint --strict` on chartDir with the given values files.
func (h Helm) Lint(ctx context.Context, chartDir string, valueFiles ...string) error {
	args := []string{"lint", chartDir, "--strict", "--namespace", "acct"}
	for _, f := range valueFiles {
		args = append(args, "--values", f)
	}
	_, err := h.Run(ctx, args...)
	return err
}
