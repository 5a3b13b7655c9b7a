package chartcheck

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/GoogleContainerTools/skaffold/v2/pkg/skaffold/schema/latest"
	"gopkg.in/yaml.v3"
	kindv1alpha4 "sigs.k8s.io/kind/pkg/apis/config/v1alpha4"
	sigsyaml "sigs.k8s.io/yaml"
)

// decodeSkaffold decodes a skaffold config strictly into skaffold's own latest schema types.
func decodeSkaffold(data []byte) (latest.SkaffoldConfig, error) {
	var cfg latest.SkaffoldConfig
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	err := dec.Decode(&cfg)
	return cfg, err
}

// TestSkaffoldConfig validates skaffold.yaml against skaffold's schema types and checks that it
// builds every image from its Dockerfile and deploys the chart in every profile.
func TestSkaffoldConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "skaffold.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := decodeSkaffold(data)
	if err != nil {
		t.Fatalf("skaffold.yaml does not match the %s schema: %v", latest.Version, err)
	}
	if cfg.APIVersion != latest.Version || cfg.Kind != "Config" {
		t.Fatalf("apiVersion %q kind %q, want %s Config", cfg.APIVersion, cfg.Kind, latest.Version)
	}
	images := map[string]string{}
	for _, a := range cfg.Build.Artifacts {
		if a.Workspace != "." || a.DockerArtifact == nil {
			t.Errorf("artifact %s: want a docker build with context \".\"", a.ImageName)
			continue
		}
		images[a.ImageName] = a.DockerArtifact.DockerfilePath
	}
	for _, name := range []string{"gateway", "auth-tokens", "transactions", "customers-invoices", "bills-tags", "reports", "mileage", "webhooks", "broker"} {
		dockerfile, ok := images["ghcr.io/acctsuite/acct-"+name]
		if !ok {
			t.Errorf("no artifact for acct-%s", name)
			continue
		}
		if _, err := os.Stat(filepath.Join(repoRoot, dockerfile)); err != nil {
			t.Errorf("acct-%s: dockerfile %s: %v", name, dockerfile, err)
		}
	}
	profiles := map[string]latest.Pipeline{"(default)": cfg.Pipeline}
	for _, p := range cfg.Profiles {
		profiles[p.Name] = p.Pipeline
	}
	for _, want := range []string{"kind", "dev", "prod-like"} {
		if _, ok := profiles[want]; !ok {
			t.Errorf("profile %s missing", want)
		}
	}
	for name, p := range profiles {
		t.Run(name, func(t *testing.T) {
			if p.Deploy.LegacyHelmDeploy == nil || len(p.Deploy.LegacyHelmDeploy.Releases) != 1 {
				t.Fatal("want exactly one helm release")
			}
			r := p.Deploy.LegacyHelmDeploy.Releases[0]
			if r.ChartPath != "charts/acct" {
				t.Errorf("chartPath %q", r.ChartPath)
			}
			for _, f := range r.ValuesFiles {
				if _, err := os.Stat(filepath.Join(repoRoot, f)); err != nil {
					t.Errorf("values file: %v", err)
				}
			}
			// The release as skaffold would install it, with placeholder images, must render and pass
			// the policies.
			args := []string{"template", r.Name, filepath.Join(repoRoot, r.ChartPath), "--namespace", r.Namespace}
			for _, f := range r.ValuesFiles {
				args = append(args, "--values", filepath.Join(repoRoot, f))
			}
			for key := range r.SetValueTemplates {
				args = append(args, "--set-string", key+"=registry.test/skaffold-"+strings.ReplaceAll(key, ".", "-"))
			}
			out, err := helm(t).Run(context.Background(), args...)
			if err != nil {
				t.Fatal(err)
			}
			objs, err := Decode(out)
			if err != nil {
				t.Fatal(err)
			}
			if err := Check(objs); err != nil {
				t.Fatalf("policy violations:\n%v", err)
			}
			for _, svc := range []string{"gateway", "auth-tokens", "customers-invoices", "bills-tags", "reports", "mileage", "webhooks"} {
				for _, field := range []string{"repository", "tag"} {
					key := "services." + svc + ".image." + field
					if !strings.Contains(r.SetValueTemplates[key], "IMAGE_") {
						t.Errorf("setValueTemplates[%s] = %q, want a skaffold image template", key, r.SetValueTemplates[key])
					}
				}
			}
		})
	}
}

// TestSkaffoldConfigRejectsUnknownFields proves the strict decoding used above catches typos.
func TestSkaffoldConfigRejectsUnknownFields(t *testing.T) {
	tests := []struct{ name, doc string }{
		{"misspelled buildkit", "apiVersion: " + latest.Version + "\nkind: Config\nbuild:\n  local:\n    useBuildKit: true\n"},
		{"unknown top-level", "apiVersion: " + latest.Version + "\nkind: Config\ndeployy: {}\n"},
		{"unknown release field", "apiVersion: " + latest.Version + "\nkind: Config\ndeploy:\n  helm:\n    releases:\n      - name: a\n        chart: charts/acct\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := decodeSkaffold([]byte(tc.doc)); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

// TestKindClusterConfig decodes deploy/kind/cluster.yaml strictly into kind's v1alpha4 types.
func TestKindClusterConfig(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kind", "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg kindv1alpha4.Cluster
	if err := sigsyaml.UnmarshalStrict(data, &cfg); err != nil {
		t.Fatalf("cluster.yaml: %v", err)
	}
	if cfg.APIVersion != "kind.x-k8s.io/v1alpha4" || cfg.Kind != "Cluster" {
		t.Fatalf("apiVersion %q kind %q", cfg.APIVersion, cfg.Kind)
	}
	var planes, workers int
	for _, n := range cfg.Nodes {
		switch n.Role {
		case kindv1alpha4.ControlPlaneRole:
			planes++
			if n.Labels["ingress-ready"] != "true" {
				t.Error("control plane must carry ingress-ready=true")
			}
			var ports []int32
			for _, m := range n.ExtraPortMappings {
				if m.ContainerPort == m.HostPort {
					ports = append(ports, m.HostPort)
				}
			}
			if !slices.Contains(ports, 80) || !slices.Contains(ports, 443) {
				t.Errorf("control plane must map 80 and 443, maps %v", ports)
			}
		case kindv1alpha4.WorkerRole:
			workers++
		default:
			t.Errorf("unknown role %q", n.Role)
		}
	}
	if planes != 1 || workers != 2 {
		t.Fatalf("%d control planes and %d workers, want 1 and 2", planes, workers)
	}
	if err := sigsyaml.UnmarshalStrict([]byte("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes: [{role: control-plane, extraPortMapping: []}]\n"), &kindv1alpha4.Cluster{}); err == nil {
		t.Fatal("strict decoding must reject unknown fields")
	}
}

// TestDeployValueFiles lints and renders the chart with the value files under deploy/ that the
// make targets install with (dev, prod-like, kind over dev, the local one-node cluster), decodes
// each object strictly and applies the policies: a values file that no longer matches the chart
// fails here, not in a cluster.
func TestDeployValueFiles(t *testing.T) {
	deploy := filepath.Join(repoRoot, "deploy")
	for name, files := range map[string][]string{
		"dev":       {filepath.Join(deploy, "values-dev.yaml")},
		"prod-like": {filepath.Join(deploy, "values-prod-like.yaml")},
		"kind":      {filepath.Join(deploy, "values-dev.yaml"), filepath.Join(deploy, "kind", "values.yaml")},
		"k8s-local": {filepath.Join(deploy, "k8s-local", "values.yaml")},
	} {
		t.Run(name, func(t *testing.T) {
			if err := helm(t).Lint(context.Background(), chartDir, files...); err != nil {
				t.Fatalf("helm lint: %v", err)
			}
			objs := render(t, files...)
			if err := Check(objs); err != nil {
				t.Fatalf("policy violations:\n%v", err)
			}
			if n := kinds(objs)["Deployment"]; n != 8 {
				t.Errorf("rendered %d Deployments, want 8", n)
			}
		})
	}
}
