package chartcheck

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"
)

const (
	repoRoot = "../.."
	chartDir = repoRoot + "/charts/acct"
)

var (
	helmOnce sync.Once
	helmBin  Helm
	helmErr  error
)

// helm returns the shared helm binary, building it once per test process if needed.
func helm(t *testing.T) Helm {
	t.Helper()
	helmOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
		defer cancel()
		helmBin, helmErr = FindHelm(ctx, filepath.Join(repoRoot, ".cache", "bin"), t.Logf)
	})
	if helmErr != nil {
		t.Fatalf("helm unavailable: %v", helmErr)
	}
	return helmBin
}

func render(t *testing.T, valueFiles ...string) []Object {
	t.Helper()
	out, err := helm(t).Template(context.Background(), chartDir, valueFiles...)
	if err != nil {
		t.Fatalf("helm template: %v", err)
	}
	objs, err := Decode(out)
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	return objs
}

func kinds(objs []Object) map[string]int {
	n := map[string]int{}
	for _, o := range objs {
		n[o.GVK.Kind]++
	}
	return n
}

// TestChartValueSets lints and renders the chart for the default values and every ci/*.yaml set,
// decodes each object strictly, applies the policies and checks what each set must render.
func TestChartValueSets(t *testing.T) {
	sets, err := filepath.Glob(filepath.Join(chartDir, "ci", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) < 3 {
		t.Fatalf("want at least 3 value sets in charts/acct/ci, found %d", len(sets))
	}
	want := map[string]map[string]int{
		// gateway, auth-tokens, transactions, customers-invoices, bills-tags,
		// reports, mileage, webhooks; a service's NetworkPolicy each plus one
		// per migration Job; a migration Job per database service and a
		// generated Secret per service with secrets (reports has none).
		"default": {"Deployment": 8, "Service": 8, "ServiceAccount": 8, "PodDisruptionBudget": 8,
			"NetworkPolicy": 15, "Job": 7, "Secret": 6, "Ingress": 0, "HorizontalPodAutoscaler": 0},
		"minimal-external": {"Deployment": 8, "Ingress": 1, "Secret": 7, "Job": 7, "Kafka": 0, "Cluster": 0},
		// The topics of acct.business, .ledger, .transactions, .invoicing, .bills,
		// .accounts and .mileage, each with its DLQ (webhooks adds none).
		// One KafkaUser per service that uses Kafka (all but the gateway).
		"bundled": {"Kafka": 1, "KafkaNodePool": 1, "KafkaTopic": 14, "KafkaUser": 7, "Cluster": 1, "HTTPRoute": 1,
			"Ingress": 0, "Job": 7, "Secret": 6},
		// Managed Kafka: credentials and CA from existing Secrets, nothing more rendered.
		"external-sasl": {"Deployment": 8, "Job": 7, "Secret": 6, "Kafka": 0, "KafkaUser": 0},
		// auth-tokens' and webhooks' keys come from existing Secrets.
		"autoscaling-keda-servicemonitor": {"HorizontalPodAutoscaler": 1, "ScaledObject": 1,
			"ServiceMonitor": 8, "Secret": 4, "Job": 7},
		// Behind a pooler: the direct URLs come from the existing Secrets, and
		// webhooks' inline one goes in the generated Secret it has anyway.
		"external-pooler": {"Deployment": 8, "Job": 7, "Secret": 6, "Cluster": 0},
		// Object storage changes env and egress only: the keys come from an existing Secret.
		"storage": {"Deployment": 8, "NetworkPolicy": 15, "Job": 7, "Secret": 6},
	}
	cases := []string{"default"}
	for _, s := range sets {
		cases = append(cases, strings.TrimSuffix(filepath.Base(s), ".yaml"))
	}
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			var files []string
			if name != "default" {
				files = []string{filepath.Join(chartDir, "ci", name+".yaml")}
			}
			if err := helm(t).Lint(context.Background(), chartDir, files...); err != nil {
				t.Fatalf("helm lint: %v", err)
			}
			objs := render(t, files...)
			if err := Check(objs); err != nil {
				t.Fatalf("policy violations:\n%v", err)
			}
			got := kinds(objs)
			exp, ok := want[name]
			if !ok {
				t.Fatalf("value set %s has no expectations in this test: add them", name)
			}
			for kind, n := range exp {
				if got[kind] != n {
					t.Errorf("%s: want %d, rendered %d (all: %v)", kind, n, got[kind], got)
				}
			}
		})
	}
}

// TestChartWiring checks the values that connect the services: upstream URLs, JWKS, brokers and
// the database secret.
func TestChartWiring(t *testing.T) {
	objs := render(t, filepath.Join(chartDir, "ci", "bundled.yaml"))
	env := map[string]map[string]corev1.EnvVar{}
	for _, o := range objs {
		if d, ok := o.Typed.(*appsv1.Deployment); ok {
			m := map[string]corev1.EnvVar{}
			for _, e := range d.Spec.Template.Spec.Containers[0].Env {
				m[e.Name] = e
			}
			env[d.Labels[labelName]] = m
		}
	}
	tests := []struct {
		service, name, value, secret, key string
	}{
		{service: "gateway", name: "UPSTREAM_AUTH_TOKENS_URL", value: "http://acct-auth-tokens"},
		{service: "gateway", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "gateway", name: "BODY_LIMIT_BYTES", value: "54525952"},
		{service: "gateway", name: "SHUTDOWN_TIMEOUT", value: "20s"},
		{service: "auth-tokens", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "auth-tokens", name: "DB_SCHEMA", value: "auth"},
		{service: "auth-tokens", name: "MIGRATE_ON_START", value: "false"},
		{service: "auth-tokens", name: "LOG_LEVEL", value: "debug"},
		{service: "auth-tokens", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "auth-tokens", name: "SIGNING_KEY_ENCRYPTION_KEY", secret: "acct-auth-tokens", key: "SIGNING_KEY_ENCRYPTION_KEY"},
		{service: "auth-tokens", name: "BOOTSTRAP_CLIENT_SECRET", secret: "acct-auth-tokens", key: "BOOTSTRAP_CLIENT_SECRET"},
		{service: "gateway", name: "UPSTREAM_TRANSACTIONS_URL", value: "http://acct-transactions"},
		{service: "transactions", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "transactions", name: "DB_SCHEMA", value: "transactions"},
		{service: "transactions", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "transactions", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		// The CloudNativePG cluster's certificate is verified against its CA (mounted from acct-pg-ca).
		{service: "transactions", name: "DB_SSLMODE", value: "verify-full"},
		{service: "transactions", name: "DB_SSLROOTCERT", value: "/etc/acct/pg-ca/ca.crt"},
		{service: "transactions", name: "PAGE_CURSOR_SECRET", secret: "acct-transactions", key: "PAGE_CURSOR_SECRET"},
		{service: "gateway", name: "UPSTREAM_CUSTOMERS_INVOICES_URL", value: "http://acct-customers-invoices"},
		{service: "customers-invoices", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "customers-invoices", name: "DB_SCHEMA", value: "invoicing"},
		{service: "customers-invoices", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "customers-invoices", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "customers-invoices", name: "PAGE_CURSOR_SECRET", secret: "acct-customers-invoices", key: "PAGE_CURSOR_SECRET"},
		{service: "gateway", name: "UPSTREAM_BILLS_TAGS_URL", value: "http://acct-bills-tags"},
		{service: "bills-tags", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "bills-tags", name: "DB_SCHEMA", value: "bills"},
		{service: "bills-tags", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "bills-tags", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "bills-tags", name: "PAGE_CURSOR_SECRET", secret: "acct-bills-tags", key: "PAGE_CURSOR_SECRET"},
		{service: "bills-tags", name: "TRANSACTIONS_URL", value: "http://acct-transactions"},
		{service: "bills-tags", name: "CUSTOMERS_INVOICES_URL", value: "http://acct-customers-invoices"},
		{service: "gateway", name: "UPSTREAM_REPORTS_URL", value: "http://acct-reports"},
		{service: "reports", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "reports", name: "DB_SCHEMA", value: "reports"},
		{service: "reports", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "reports", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "gateway", name: "UPSTREAM_MILEAGE_URL", value: "http://acct-mileage"},
		{service: "mileage", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "mileage", name: "DB_SCHEMA", value: "mileage"},
		{service: "mileage", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "mileage", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "mileage", name: "PAGE_CURSOR_SECRET", secret: "acct-mileage", key: "PAGE_CURSOR_SECRET"},
		{service: "gateway", name: "UPSTREAM_WEBHOOKS_URL", value: "http://acct-webhooks"},
		{service: "webhooks", name: "JWKS_URL", value: "http://acct-auth-tokens/.well-known/jwks.json"},
		{service: "webhooks", name: "DB_SCHEMA", value: "webhooks"},
		{service: "webhooks", name: "KAFKA_BROKERS", value: "acct-kafka-kafka-bootstrap:9093"},
		{service: "webhooks", name: "DATABASE_URL", secret: "acct-pg-app", key: "uri"},
		{service: "webhooks", name: "PAGE_CURSOR_SECRET", secret: "acct-webhooks", key: "PAGE_CURSOR_SECRET"},
		{service: "webhooks", name: "WEBHOOKS_SECRET_KEY", secret: "acct-webhooks", key: "WEBHOOKS_SECRET_KEY"},
	}
	for _, tc := range tests {
		t.Run(tc.service+"/"+tc.name, func(t *testing.T) {
			e, ok := env[tc.service][tc.name]
			if !ok {
				t.Fatalf("%s not set", tc.name)
			}
			if tc.secret == "" {
				if e.Value != tc.value {
					t.Fatalf("value %q, want %q", e.Value, tc.value)
				}
				return
			}
			ref := e.ValueFrom
			if ref == nil || ref.SecretKeyRef == nil || ref.SecretKeyRef.Name != tc.secret || ref.SecretKeyRef.Key != tc.key {
				t.Fatalf("valueFrom %+v, want secret %s key %s", ref, tc.secret, tc.key)
			}
		})
	}
	for _, o := range objs {
		if s, ok := o.Typed.(*corev1.Secret); ok && s.Labels[labelName] == "auth-tokens" {
			if len(s.Data["SIGNING_KEY_ENCRYPTION_KEY"]) != 44 {
				t.Errorf("SIGNING_KEY_ENCRYPTION_KEY must be base64 of 32 bytes, got %d chars", len(s.Data["SIGNING_KEY_ENCRYPTION_KEY"]))
			}
			if string(s.Data["BOOTSTRAP_CLIENT_ID"]) != "platform-admin" {
				t.Errorf("BOOTSTRAP_CLIENT_ID %q, want the configured id", s.Data["BOOTSTRAP_CLIENT_ID"])
			}
		}
		if j, ok := o.Typed.(*batchv1.Job); ok && j.Annotations["helm.sh/hook"] != "post-install,pre-upgrade" {
			t.Errorf("with a bundled CNPG cluster the migration hook must run post-install, got %q", j.Annotations["helm.sh/hook"])
		}
	}
}

// TestChartInternalCalls: the NetworkPolicies follow the calls trait:
// bills-tags (generic tagging) may reach the transactions and
// customers-invoices services (and auth-tokens for its JWKS), and each of
// them admits it; no other
// service admits bills-tags but auth-tokens (its JWKS).
func TestChartInternalCalls(t *testing.T) {
	objs := render(t, filepath.Join(chartDir, "ci", "bundled.yaml"))
	policies := map[string]*networkingv1.NetworkPolicy{}
	for _, o := range objs {
		if np, ok := o.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels["app.kubernetes.io/component"] != "migrate" {
			policies[np.Labels[labelName]] = np
		}
	}
	names := func(peers []networkingv1.NetworkPolicyPeer) []string {
		var out []string
		for _, p := range peers {
			if p.PodSelector != nil && p.PodSelector.MatchLabels[labelName] != "" {
				out = append(out, p.PodSelector.MatchLabels[labelName])
			}
		}
		return out
	}
	bt := policies["bills-tags"]
	if bt == nil {
		t.Fatalf("no NetworkPolicy for bills-tags (have %v)", slices.Collect(maps.Keys(policies)))
	}
	var egress []string
	for _, r := range bt.Spec.Egress {
		egress = append(egress, names(r.To)...)
	}
	slices.Sort(egress)
	if want := []string{"auth-tokens", "customers-invoices", "transactions"}; !slices.Equal(egress, want) { // auth-tokens: JWKS
		t.Errorf("bills-tags egress to %v, want %v", egress, want)
	}
	for name, np := range policies {
		var from []string
		for _, r := range np.Spec.Ingress {
			from = append(from, names(r.From)...)
		}
		want := name == "transactions" || name == "customers-invoices" || name == "auth-tokens"
		if got := slices.Contains(from, "bills-tags"); got != want {
			t.Errorf("%s admits bills-tags: %v, want %v (ingress from %v)", name, got, want, from)
		}
	}
}

// TestChartRejectsBadValues feeds invalid values: values.schema.json or the templates must refuse them.
func TestChartRejectsBadValues(t *testing.T) {
	tests := []struct {
		name, values, wantErr string
	}{
		{"unknown log level", "global: {logLevel: verbose}", "logLevel"},
		{"unknown top-level key", "gatewayy: {}", "gatewayy"},
		{"unknown service field", "services: {gateway: {replicas: 3}}", "replicas"},
		{"replicaCount type", "services: {gateway: {replicaCount: two}}", "replicaCount"},
		{"service missing from catalog", "services: {ledger: {enabled: true, image: {}, replicaCount: 1, resources: {requests: {}, limits: {}}, autoscaling: {enabled: false, minReplicas: 1, maxReplicas: 1, targetCPUUtilizationPercentage: 50}, pdb: {enabled: true}}}", "unknown service"},
		{"no database source", "postgresql: {external: {auth-tokens: {url: '', existingSecret: ''}}}", "postgresql.external.auth-tokens"},
		{"database url scheme", "postgresql: {external: {auth-tokens: {url: 'mysql://x', existingSecret: ''}}}", "url"},
		{"kafka lag without topic", "keda: {enabled: true}\nservices: {auth-tokens: {autoscaling: {enabled: true, kafkaLag: {enabled: true}}}}", "topic and consumerGroup"},
		{"httpRoute without parentRefs", "gatewayAPI: {httpRoute: {enabled: true}}", "parentRefs"},
		{"pools over the connection budget", "services: {transactions: {env: {DB_MAX_CONNS: '100'}}}", "postgresql.maxConnections"},
		{"kafka PLAIN in clear", "kafka: {sasl: {mechanism: PLAIN, existingSecret: creds}}", "kafka.tls.enabled"},
		{"kafka MSK IAM without TLS", "kafka: {sasl: {mechanism: AWS_MSK_IAM}}", "kafka.tls.enabled"},
		{"kafka SCRAM without credentials", "kafka: {sasl: {mechanism: SCRAM-SHA-256}}", "kafka.sasl.existingSecret"},
		{"kafka unknown mechanism", "kafka: {sasl: {mechanism: GSSAPI}}", "mechanism"},
		{"ingress without trusted proxies", "ingress: {enabled: true}", "TRUSTED_PROXIES"},
		{"httpRoute without trusted proxies", "gatewayAPI: {httpRoute: {enabled: true, parentRefs: [{name: public}]}}", "TRUSTED_PROXIES"},
		{"pull policy enum", "global: {image: {pullPolicy: Sometimes}}", "pullPolicy"},
		{"storage enabled without a bucket", "storage: {enabled: true}", "bucket"},
		{"storage bucket name", "storage: {enabled: true, bucket: My_Bucket}", "bucket"},
		{"storage endpoint scheme", "storage: {enabled: true, bucket: b1b, endpoint: 's3.example.com'}", "endpoint"},
		{"storage unknown key", "storage: {enabled: true, bucket: b1b, pathStyle: true}", "pathStyle"},
		{"storage half inline credentials", "storage: {enabled: true, bucket: b1b, credentials: {accessKeyId: AKID}}", "accessKeyId and secretAccessKey"},
		{"storage on a service without files", "services: {gateway: {storage: {enabled: true}}}", "keeps no files"},
		{"webhooks key as a plain value", "services: {webhooks: {env: {WEBHOOKS_SECRET_KEY: c2VjcmV0}}}", "services.webhooks.env.WEBHOOKS_SECRET_KEY"},
		{"signing key as a plain value", "services: {auth-tokens: {env: {SIGNING_KEY_ENCRYPTION_KEY: c2VjcmV0}}}", "services.auth-tokens.env.SIGNING_KEY_ENCRYPTION_KEY"},
		{"internet egress port type", "networkPolicy: {internetEgress: {ports: [https]}}", "ports"},
		{"internet egress no ports", "networkPolicy: {internetEgress: {enabled: true, ports: []}}", "ports"},
		{"internet egress except not a CIDR", "networkPolicy: {internetEgress: {extraExcept: [example.com]}}", "extraExcept"},
		{"internet egress unknown key", "networkPolicy: {internetEgress: {allow: [0.0.0.0/0]}}", "allow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "values.yaml")
			if err := os.WriteFile(f, []byte(tc.values), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := helm(t).Template(context.Background(), chartDir, f)
			if err == nil {
				t.Fatalf("helm template accepted %q", tc.values)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error does not mention %q:\n%v", tc.wantErr, err)
			}
		})
	}
}

// TestCheckRejectsBrokenPolicies breaks one policy at a time in a compliant rendering and expects
// Check to name the violation.
func TestCheckRejectsBrokenPolicies(t *testing.T) {
	out, err := helm(t).Template(context.Background(), chartDir, filepath.Join(chartDir, "ci", "minimal-external.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	good := func(t *testing.T) []Object {
		objs, err := Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		return objs
	}
	if err := Check(good(t)); err != nil {
		t.Fatalf("baseline must pass: %v", err)
	}
	deployment := func(objs []Object, name string) *appsv1.Deployment {
		for _, o := range objs {
			if d, ok := o.Typed.(*appsv1.Deployment); ok && d.Labels[labelName] == name {
				return d
			}
		}
		t.Fatalf("no Deployment for %s", name)
		return nil
	}
	without := func(objs []Object, kind, service string) []Object {
		var kept []Object
		for _, o := range objs {
			if o.GVK.Kind == kind && o.Labels[labelName] == service {
				continue
			}
			kept = append(kept, o)
		}
		return kept
	}
	f := false
	tr := true
	root := int64(0)
	tests := []struct {
		name    string
		mutate  func([]Object) []Object
		wantErr string
	}{
		{"metrics on the API port", func(o []Object) []Object {
			c := &deployment(o, "auth-tokens").Spec.Template.Spec.Containers[0]
			for i := range c.Env {
				if c.Env[i].Name == "ADMIN_ADDR" {
					c.Env[i].Value = ""
				}
			}
			return o
		}, "ADMIN_ADDR=:9090"},
		{"public metrics port", func(o []Object) []Object {
			for _, obj := range o {
				if np, ok := obj.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels[labelName] == "gateway" {
					metrics := intstr.FromString("metrics")
					np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{
						Ports: []networkingv1.NetworkPolicyPort{{Port: &metrics}}})
				}
			}
			return o
		}, "only the http port may be public"},
		{"no liveness probe", func(o []Object) []Object {
			deployment(o, "gateway").Spec.Template.Spec.Containers[0].LivenessProbe = nil
			return o
		}, "liveness probe must GET /healthz"},
		{"readiness on wrong path", func(o []Object) []Object {
			deployment(o, "auth-tokens").Spec.Template.Spec.Containers[0].ReadinessProbe.HTTPGet.Path = "/healthz"
			return o
		}, "readiness probe must GET /readyz"},
		{"runs as root", func(o []Object) []Object {
			d := deployment(o, "gateway")
			d.Spec.Template.Spec.Containers[0].SecurityContext.RunAsNonRoot = &f
			d.Spec.Template.Spec.Containers[0].SecurityContext.RunAsUser = &root
			return o
		}, "runAsNonRoot must be true"},
		{"root StatefulSet", func(o []Object) []Object {
			return append(o, Object{GVK: appsv1.SchemeGroupVersion.WithKind("StatefulSet"), Name: "extra",
				Typed: &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Template: corev1.PodTemplateSpec{
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "x:1"}}}}}}})
		}, "StatefulSet/extra: container db: runAsNonRoot must be true"},
		{"privileged CronJob", func(o []Object) []Object {
			return append(o, Object{GVK: batchv1.SchemeGroupVersion.WithKind("CronJob"), Name: "nightly",
				Typed: &batchv1.CronJob{Spec: batchv1.CronJobSpec{JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{
					Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{
						Name: "c", Image: "x:1", SecurityContext: &corev1.SecurityContext{Privileged: &tr}}}}}}}}}})
		}, "CronJob/nightly: container c: must not be privileged"},
		{"writable root filesystem", func(o []Object) []Object {
			deployment(o, "gateway").Spec.Template.Spec.Containers[0].SecurityContext.ReadOnlyRootFilesystem = &f
			return o
		}, "readOnlyRootFilesystem"},
		{"privilege escalation", func(o []Object) []Object {
			deployment(o, "gateway").Spec.Template.Spec.Containers[0].SecurityContext.AllowPrivilegeEscalation = &tr
			return o
		}, "allowPrivilegeEscalation"},
		{"capabilities kept", func(o []Object) []Object {
			deployment(o, "gateway").Spec.Template.Spec.Containers[0].SecurityContext.Capabilities.Drop = nil
			return o
		}, "drop ALL"},
		{"no seccomp", func(o []Object) []Object {
			d := deployment(o, "gateway")
			d.Spec.Template.Spec.Containers[0].SecurityContext.SeccompProfile = nil
			d.Spec.Template.Spec.SecurityContext.SeccompProfile = nil
			return o
		}, "seccompProfile"},
		{"no memory limit", func(o []Object) []Object {
			delete(deployment(o, "auth-tokens").Spec.Template.Spec.Containers[0].Resources.Limits, corev1.ResourceMemory)
			return o
		}, "resources.limits.memory"},
		{"zero cpu request", func(o []Object) []Object {
			deployment(o, "auth-tokens").Spec.Template.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("0")
			return o
		}, "resources.requests.cpu"},
		{"grace shorter than drain", func(o []Object) []Object {
			g := int64(10)
			deployment(o, "gateway").Spec.Template.Spec.TerminationGracePeriodSeconds = &g
			return o
		}, "must exceed SHUTDOWN_TIMEOUT"},
		{"token automounted", func(o []Object) []Object {
			deployment(o, "gateway").Spec.Template.Spec.AutomountServiceAccountToken = nil
			return o
		}, "automountServiceAccountToken"},
		{"missing PDB", func(o []Object) []Object { return without(o, "PodDisruptionBudget", "auth-tokens") }, "no PodDisruptionBudget"},
		{"missing NetworkPolicy", func(o []Object) []Object { return without(o, "NetworkPolicy", "gateway") }, "no NetworkPolicy"},
		{"missing Service", func(o []Object) []Object { return without(o, "Service", "auth-tokens") }, "no Service selects"},
		{"missing ServiceAccount", func(o []Object) []Object { return without(o, "ServiceAccount", "gateway") }, "ServiceAccount"},
		{"missing migration Job", func(o []Object) []Object { return without(o, "Job", "auth-tokens") }, "no migration Job"},
		{"migration pods without NetworkPolicy", func(o []Object) []Object {
			var kept []Object
			for _, x := range o {
				if x.GVK.Kind == "NetworkPolicy" && x.Labels["app.kubernetes.io/component"] == "migrate" {
					continue
				}
				kept = append(kept, x)
			}
			return kept
		}, "no NetworkPolicy selects its pods"},
		{"internal service open to all", func(o []Object) []Object {
			for _, x := range o {
				if np, ok := x.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels[labelName] == "auth-tokens" {
					np.Spec.Ingress = append(np.Spec.Ingress, networkingv1.NetworkPolicyIngressRule{})
				}
			}
			return o
		}, "allows ingress from anywhere"},
		{"ingress to an internal service", func(o []Object) []Object {
			for _, x := range o {
				if ing, ok := x.Typed.(*networkingv1.Ingress); ok {
					ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name = "acct-auth-tokens"
				}
			}
			return o
		}, "is not the gateway Service"},
		{"job without hook", func(o []Object) []Object {
			for _, x := range o {
				if j, ok := x.Typed.(*batchv1.Job); ok {
					delete(j.Annotations, "helm.sh/hook")
				}
			}
			return o
		}, "helm.sh/hook must include"},
		{"secret in a plain env value", func(o []Object) []Object {
			c := &deployment(o, "transactions").Spec.Template.Spec.Containers[0]
			c.Env = append(c.Env, corev1.EnvVar{Name: "AWS_SECRET_ACCESS_KEY", Value: "plain"})
			return o
		}, "AWS_SECRET_ACCESS_KEY must come from a secretKeyRef"},
		{"migrations on start", func(o []Object) []Object {
			env := deployment(o, "auth-tokens").Spec.Template.Spec.Containers[0].Env
			for i := range env {
				if env[i].Name == "MIGRATE_ON_START" {
					env[i].Value = "true"
				}
			}
			return o
		}, "MIGRATE_ON_START must be false"},
		{"autoscaler targets a missing Deployment", func(o []Object) []Object {
			hpa := &autoscalingv2.HorizontalPodAutoscaler{}
			hpa.Name = "stray"
			hpa.Spec.ScaleTargetRef.Name = "acct-missing"
			return append(o, Object{GVK: autoscalingv2.SchemeGroupVersion.WithKind("HorizontalPodAutoscaler"), Name: "stray", Typed: hpa})
		}, `scale target Deployment "acct-missing" not rendered`},
		{"internet egress outside the webhooks service", func(o []Object) []Object {
			for _, x := range o {
				if np, ok := x.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels[labelName] == "mileage" {
					np.Spec.Egress = append(np.Spec.Egress, networkingv1.NetworkPolicyEgressRule{
						To: []networkingv1.NetworkPolicyPeer{{IPBlock: &networkingv1.IPBlock{CIDR: "0.0.0.0/0", Except: []string{"10.0.0.0/8"}}}}})
				}
			}
			return o
		}, "NetworkPolicy acct-mileage allows egress to 0.0.0.0/0"},
		{"internet egress into private ranges", func(o []Object) []Object {
			for _, x := range o {
				if np, ok := x.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels[labelName] == "webhooks" {
					for i := range np.Spec.Egress {
						for j := range np.Spec.Egress[i].To {
							if b := np.Spec.Egress[i].To[j].IPBlock; b != nil && b.CIDR == "0.0.0.0/0" {
								b.Except = slices.DeleteFunc(b.Except, func(e string) bool { return e == "169.254.0.0/16" })
							}
						}
					}
				}
			}
			return o
		}, "ipBlock 0.0.0.0/0 must except 169.254.0.0/16"},
		{"internet egress on every port", func(o []Object) []Object {
			for _, x := range o {
				if np, ok := x.Typed.(*networkingv1.NetworkPolicy); ok && np.Labels[labelName] == "webhooks" {
					for i := range np.Spec.Egress {
						if len(np.Spec.Egress[i].To) > 0 && np.Spec.Egress[i].To[0].IPBlock != nil {
							np.Spec.Egress[i].Ports = nil
						}
					}
				}
			}
			return o
		}, "egress outside the cluster on every port"},
		{"webhooks key as a plain value", func(o []Object) []Object {
			c := &deployment(o, "webhooks").Spec.Template.Spec.Containers[0]
			for i := range c.Env {
				if c.Env[i].Name == "WEBHOOKS_SECRET_KEY" {
					c.Env[i] = corev1.EnvVar{Name: "WEBHOOKS_SECRET_KEY", Value: "plain"}
				}
			}
			return o
		}, "WEBHOOKS_SECRET_KEY must come from a secretKeyRef"},
		{"pdb selects nothing", func(o []Object) []Object {
			for _, x := range o {
				if p, ok := x.Typed.(*policyv1.PodDisruptionBudget); ok && p.Labels[labelName] == "gateway" {
					p.Spec.Selector.MatchLabels = map[string]string{labelName: "other"}
				}
			}
			return o
		}, "no PodDisruptionBudget"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.mutate(good(t)))
			if err == nil {
				t.Fatal("Check accepted the broken manifests")
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error does not mention %q:\n%v", tc.wantErr, err)
			}
		})
	}
}
