package soak

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// RepoRoot is the folder of the go.work workspace.
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", err
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", fmt.Errorf("the soak needs the go.work workspace")
	}
	return filepath.Dir(w), nil
}

// BuildBinaries builds every service, the gateway and the broker into dir.
func BuildBinaries(root, dir string) error {
	args := []string{"build", "-o", dir + "/"}
	for _, s := range append(stack.ServiceNames(), "gateway") {
		args = append(args, "./services/"+s+"/cmd/"+s)
	}
	args = append(args, "./tools/cmd/broker")
	build := exec.Command("go", args...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building binaries: %v\n%s", err, out)
	}
	return nil
}
