package chartcheck

import (
	"maps"
	"net/netip"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"sigs.k8s.io/yaml"
)

// valueSets are the chart's value sets by name: the defaults ("default",
// no file) and every ci/*.yaml (by file name).
func valueSets(t *testing.T) map[string][]string {
	t.Helper()
	sets, err := filepath.Glob(filepath.Join(chartDir, "ci", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{"default": nil}
	for _, s := range sets {
		cases[filepath.Base(s)] = []string{s}
	}
	return cases
}

// valuesOf is values.yaml with the value set's file merged over it (maps
// merged key by key, as helm does).
func valuesOf(t *testing.T, files ...string) map[string]any {
	t.Helper()
	read := func(path string) map[string]any {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := yaml.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return m
	}
	var merge func(dst, src map[string]any)
	merge = func(dst, src map[string]any) {
		for k, v := range src {
			if sm, ok := v.(map[string]any); ok {
				if dm, ok := dst[k].(map[string]any); ok {
					merge(dm, sm)
					continue
				}
			}
			dst[k] = v
		}
	}
	out := read(filepath.Join(chartDir, "values.yaml"))
	for _, f := range files {
		merge(out, read(f))
	}
	return out
}

func dig(m map[string]any, path ...string) any {
	var v any = m
	for _, p := range path {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[p]
	}
	return v
}

func num(v any) int {
	switch n := v.(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// poolOf is the most server connections a container's env lets pgdb
// open: DB_MAX_CONNS (20 unset), plus DB_DIRECT_MAX_CONNS (4 unset) when
// DATABASE_DIRECT_URL is set (the pooled ones then reach the pooler, but
// are counted as if they reached the server, as the chart does).
func poolOf(t *testing.T, c corev1.Container) int {
	t.Helper()
	envInt := func(name string, unset int) int {
		for _, e := range c.Env {
			if e.Name == name {
				n, err := strconv.Atoi(e.Value)
				if err != nil {
					t.Fatalf("%s: %s %q", c.Name, name, e.Value)
				}
				return n
			}
		}
		return unset
	}
	n := envInt("DB_MAX_CONNS", 20)
	if envFrom(c, "DATABASE_DIRECT_URL") != nil {
		if c.Name == "migrate" {
			// The migration opens only its direct connections.
			return envInt("DB_DIRECT_MAX_CONNS", 4)
		}
		n += envInt("DB_DIRECT_MAX_CONNS", 4)
	}
	return n
}

// envFrom is the Secret reference of a container's variable (nil when it
// is unset or not from a Secret).
func envFrom(c corev1.Container, name string) *corev1.SecretKeySelector {
	for _, e := range c.Env {
		if e.Name == name && e.ValueFrom != nil {
			return e.ValueFrom.SecretKeyRef
		}
	}
	return nil
}

// TestDirectDatabaseURL: behind a transaction pooler (ci/external-pooler.yaml)
// every database service's pods and migration Job get DATABASE_DIRECT_URL
// from its Secret (the existing one's key, or the chart's for an inline
// directUrl) beside the pooler's DATABASE_URL; without one (the other
// value sets), none does.
func TestDirectDatabaseURL(t *testing.T) {
	for name, files := range valueSets(t) {
		t.Run(name, func(t *testing.T) {
			pooled := name == "external-pooler.yaml"
			seen := 0
			for _, o := range render(t, files...) {
				var c corev1.Container
				switch w := o.Typed.(type) {
				case *appsv1.Deployment:
					c = w.Spec.Template.Spec.Containers[0]
				case *batchv1.Job:
					c = w.Spec.Template.Spec.Containers[0]
				default:
					continue
				}
				if !hasDatabase(c) {
					continue
				}
				seen++
				ref, url := envFrom(c, "DATABASE_DIRECT_URL"), envFrom(c, "DATABASE_URL")
				switch {
				case !pooled && ref != nil:
					t.Errorf("%s has DATABASE_DIRECT_URL with no pooler configured", o)
				case pooled && ref == nil:
					t.Errorf("%s: no DATABASE_DIRECT_URL behind the pooler", o)
				case pooled && ref.Name != url.Name:
					t.Errorf("%s: DATABASE_DIRECT_URL from Secret %s, DATABASE_URL from %s: want the same", o, ref.Name, url.Name)
				case pooled && ref.Key != "DATABASE_DIRECT_URL":
					t.Errorf("%s: DATABASE_DIRECT_URL from key %s", o, ref.Key)
				}
			}
			if seen == 0 {
				t.Fatal("no database workloads rendered")
			}
		})
	}
}

func hasDatabase(c corev1.Container) bool {
	for _, e := range c.Env {
		if e.Name == "DATABASE_URL" {
			return true
		}
	}
	return false
}

// TestConnectionBudget: in every value set, the database pools the pods
// get, at each service's most replicas (the autoscaler's maximum or the
// replica count), plus the migration Jobs' and 10 kept for administration,
// fit in postgresql.maxConnections; the chart's CloudNativePG cluster
// allows that many (plus the superuser's reserve).
func TestConnectionBudget(t *testing.T) {
	for name, files := range valueSets(t) {
		t.Run(name, func(t *testing.T) {
			values := valuesOf(t, files...)
			budget := num(dig(values, "postgresql", "maxConnections"))
			if budget == 0 {
				t.Fatal("postgresql.maxConnections is not set")
			}
			need := 10
			for _, o := range render(t, files...) {
				switch w := o.Typed.(type) {
				case *appsv1.Deployment:
					c := w.Spec.Template.Spec.Containers[0]
					if !hasDatabase(c) {
						continue
					}
					svc := w.Labels[labelName]
					replicas := num(dig(values, "services", svc, "replicaCount"))
					replicas = max(replicas, num(dig(values, "services", svc, "autoscaling", "maxReplicas")))
					if w.Spec.Replicas != nil {
						replicas = max(replicas, int(*w.Spec.Replicas))
					}
					need += poolOf(t, c) * replicas
				case *batchv1.Job:
					c := w.Spec.Template.Spec.Containers[0]
					if hasDatabase(c) {
						need += poolOf(t, c)
					}
				}
				if o.GVK.Kind == "Cluster" && o.Custom != nil {
					got := dig(o.Custom.Object, "spec", "postgresql", "parameters", "max_connections")
					if got != strconv.Itoa(budget+3) {
						t.Errorf("CloudNativePG max_connections %v, want %d (the budget plus the superuser's 3)", got, budget+3)
					}
				}
			}
			if need > budget {
				t.Fatalf("the pools need %d connections at their most replicas, over postgresql.maxConnections %d", need, budget)
			}
			t.Logf("%d of %d connections", need, budget)
		})
	}
}

// TestEgressPeers: database and Kafka egress name their peers: the
// chart's own CloudNativePG and Strimzi pods, or the CIDRs of
// networkPolicy.peers, so the ports are open to nothing else.
func TestEgressPeers(t *testing.T) {
	t.Run("bundled", func(t *testing.T) {
		for _, o := range render(t, filepath.Join(chartDir, "ci", "bundled.yaml")) {
			np, ok := o.Typed.(*networkingv1.NetworkPolicy)
			if !ok {
				continue
			}
			for _, r := range np.Spec.Egress {
				var want map[string]string
				switch {
				case rulePortMatches(r.Ports, 5432):
					want = map[string]string{"cnpg.io/cluster": "acct-pg"}
				case rulePortMatches(r.Ports, 9093):
					want = map[string]string{"strimzi.io/cluster": "acct-kafka", "strimzi.io/broker-role": "true"}
				default:
					continue
				}
				if len(r.To) != 1 || r.To[0].PodSelector == nil || !maps.Equal(r.To[0].PodSelector.MatchLabels, want) || r.To[0].IPBlock != nil {
					t.Errorf("%s: egress on %v goes to %+v, want only the pods %v", np.Name, r.Ports, r.To, want)
				}
			}
		}
	})
	t.Run("named CIDRs", func(t *testing.T) {
		f := filepath.Join(t.TempDir(), "peers.yaml")
		if err := os.WriteFile(f, []byte(`networkPolicy:
  peers:
    postgresql: [{ipBlock: {cidr: 10.20.0.0/24}}]
    kafka: [{ipBlock: {cidr: 10.30.0.0/24}}]
`), 0o600); err != nil {
			t.Fatal(err)
		}
		objs := render(t, f)
		policies := servicePolicies(objs)
		for _, svc := range []string{"transactions", "webhooks"} {
			np := policies[svc]
			for addr, want := range map[string][]int32{
				"10.20.0.5": {53, 5432}, "10.30.0.5": {53, 9092}, "10.40.0.5": {53}} {
				got := openPorts(np, netip.MustParseAddr(addr))
				if !slices.Equal(got, want) {
					t.Errorf("%s reaches %s on %v, want %v", svc, addr, got, want)
				}
			}
		}
	})
}
