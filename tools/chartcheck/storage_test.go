package chartcheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
)

// storageServices keep files in object storage (the storage trait of templates/_catalog.tpl).
var storageServices = []string{"transactions", "reports", "bills-tags", "customers-invoices"}

// storageEnvPrefixes are the variables of object storage: pkg/storage's (STORAGE_*, S3_*) and the
// AWS SDK's credentials (AWS_*).
var storageEnvPrefixes = []string{"STORAGE_", "S3_", "AWS_"}

func isStorageEnv(name string) bool {
	return slices.ContainsFunc(storageEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
}

// workloadEnv maps "Deployment/<service>" and "Job/<service>" to the env of their first container.
func workloadEnv(objs []Object) map[string]map[string]corev1.EnvVar {
	out := map[string]map[string]corev1.EnvVar{}
	add := func(key string, env []corev1.EnvVar) {
		m := map[string]corev1.EnvVar{}
		for _, e := range env {
			m[e.Name] = e
		}
		out[key] = m
	}
	for _, o := range objs {
		switch t := o.Typed.(type) {
		case *appsv1.Deployment:
			add("Deployment/"+t.Labels[labelName], t.Spec.Template.Spec.Containers[0].Env)
		case *batchv1.Job:
			add("Job/"+t.Labels[labelName], t.Spec.Template.Spec.Containers[0].Env)
		}
	}
	return out
}

// egressPorts lists the ports of the egress rules of a service's own NetworkPolicy (DNS, PostgreSQL,
// Kafka and, with storage, the object storage port).
func egressPorts(objs []Object, service string) []int32 {
	var ports []int32
	for _, o := range objs {
		np, ok := o.Typed.(*networkingv1.NetworkPolicy)
		if !ok || np.Labels[labelName] != service || np.Labels["app.kubernetes.io/component"] == "migrate" {
			continue
		}
		for _, r := range np.Spec.Egress {
			for _, p := range r.Ports {
				if p.Port != nil {
					ports = append(ports, p.Port.IntVal)
				}
			}
		}
	}
	return ports
}

// writeValues writes a values file for helm. (helm splits --values on commas, and t.TempDir is
// named after the test: test names here must not contain one.)
func writeValues(t *testing.T, values string) string {
	t.Helper()
	f := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(f, []byte(values), 0o600); err != nil {
		t.Fatal(err)
	}
	return f
}

// TestChartStorageOff: by default (and in every value set that leaves storage off) no workload gets
// a storage variable, so the services start with their file endpoints off (503), as before.
func TestChartStorageOff(t *testing.T) {
	for _, set := range []string{"", "minimal-external", "bundled", "autoscaling-keda-servicemonitor"} {
		name := set
		if name == "" {
			name = "default"
		}
		t.Run(name, func(t *testing.T) {
			var files []string
			if set != "" {
				files = append(files, filepath.Join(chartDir, "ci", set+".yaml"))
			}
			objs := render(t, files...)
			for workload, env := range workloadEnv(objs) {
				for n := range env {
					if isStorageEnv(n) {
						t.Errorf("%s: %s set with storage off", workload, n)
					}
				}
			}
			for _, svc := range storageServices {
				if slices.Contains(egressPorts(objs, svc), 443) {
					t.Errorf("%s: egress to 443 with storage off", svc)
				}
			}
		})
	}
}

// TestChartStorageOn renders the storage value sets and checks the variables of exactly the services
// that keep files, the credentials' source and the egress to the endpoint.
func TestChartStorageOn(t *testing.T) {
	type ref struct{ secret, key string }
	tests := []struct {
		name      string
		values    string // a ci/ set name or inline values
		plain     map[string]map[string]string
		absent    map[string][]string
		creds     map[string][2]ref // service -> access key id, secret access key refs
		port      int32
		without   []string // storage services opted out
		annotated map[string]string
	}{
		{
			name:   "ci/storage: S3-compatible endpoint; existing Secret; bucket per service",
			values: "storage",
			plain: map[string]map[string]string{
				"transactions": {"STORAGE_BACKEND": "s3", "S3_BUCKET": "acct-files", "S3_REGION": "eu-west-1",
					"S3_ENDPOINT": "https://s3.storage.example.com:9000", "S3_FORCE_PATH_STYLE": "true",
					"EXPORT_TTL": "24h", "EXPORT_REUSE_WINDOW": "5m"},
				"reports": {"STORAGE_BACKEND": "s3", "S3_BUCKET": "acct-exports", "S3_REGION": "eu-west-1",
					"S3_ENDPOINT": "https://s3.storage.example.com:9000", "S3_FORCE_PATH_STYLE": "true",
					"EXPORT_TTL": "24h", "EXPORT_REUSE_WINDOW": "5m"},
			},
			// The bucket's lifecycle rules are left alone unless asked.
			absent: map[string][]string{"transactions": {"EXPORT_LIFECYCLE_RULE"}, "reports": {"EXPORT_LIFECYCLE_RULE"}},
			creds: map[string][2]ref{
				"transactions": {{"acct-storage", "access-key-id"}, {"acct-storage", "secret-access-key"}},
				"reports":      {{"acct-storage", "access-key-id"}, {"acct-storage", "secret-access-key"}},
			},
			port: 9000,
		},
		{
			name: "inline keys kept in the chart's Secrets",
			values: `storage: {enabled: true, bucket: acct-files, endpoint: "http://versitygw.storage",
  forcePathStyle: true, credentials: {accessKeyId: inline-key-id, secretAccessKey: inline-secret-key},
  exportTTL: 2h, exportReuseWindow: "0", exportLifecycleRule: true}
services:
  reports: {env: {EXPORT_TTL: 6h}}`,
			plain: map[string]map[string]string{
				"transactions": {"STORAGE_BACKEND": "s3", "S3_BUCKET": "acct-files", "S3_REGION": "us-east-1",
					"S3_ENDPOINT": "http://versitygw.storage", "S3_FORCE_PATH_STYLE": "true",
					"EXPORT_TTL": "2h", "EXPORT_REUSE_WINDOW": "0", "EXPORT_LIFECYCLE_RULE": "true"},
				// A service's own env wins over the storage values.
				"reports": {"STORAGE_BACKEND": "s3", "S3_BUCKET": "acct-files", "EXPORT_TTL": "6h", "EXPORT_REUSE_WINDOW": "0"},
			},
			creds: map[string][2]ref{
				"transactions": {{"acct-transactions", "AWS_ACCESS_KEY_ID"}, {"acct-transactions", "AWS_SECRET_ACCESS_KEY"}},
				"reports":      {{"acct-reports", "AWS_ACCESS_KEY_ID"}, {"acct-reports", "AWS_SECRET_ACCESS_KEY"}},
			},
			port: 80,
		},
		{
			name: "AWS S3 with the pods' identity (IRSA); reports opted out",
			values: `storage: {enabled: true, bucket: acct-files, region: us-west-2}
services:
  transactions: {serviceAccount: {annotations: {eks.amazonaws.com/role-arn: "arn:aws:iam::123456789012:role/acct-files"}}}
  reports: {storage: {enabled: false}}`,
			plain: map[string]map[string]string{
				"transactions": {"STORAGE_BACKEND": "s3", "S3_BUCKET": "acct-files", "S3_REGION": "us-west-2", "S3_FORCE_PATH_STYLE": "false"},
			},
			absent: map[string][]string{
				"transactions": {"S3_ENDPOINT", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"},
				// Only the services that write exports to storage get their policy.
				"bills-tags": {"EXPORT_TTL", "EXPORT_REUSE_WINDOW"},
				"reports":    {"EXPORT_TTL", "EXPORT_REUSE_WINDOW"},
			},
			port:      443,
			without:   []string{"reports"},
			annotated: map[string]string{"transactions": "arn:aws:iam::123456789012:role/acct-files"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(chartDir, "ci", tc.values+".yaml")
			if strings.Contains(tc.values, ":") {
				file = writeValues(t, tc.values)
			}
			if err := helm(t).Lint(t.Context(), chartDir, file); err != nil {
				t.Fatalf("helm lint: %v", err)
			}
			objs := render(t, file)
			if err := Check(objs); err != nil {
				t.Fatalf("policy violations:\n%v", err)
			}
			env := workloadEnv(objs)
			for workload, vars := range env {
				svc := strings.SplitN(workload, "/", 2)[1]
				uses := strings.HasPrefix(workload, "Deployment/") && slices.Contains(storageServices, svc) && !slices.Contains(tc.without, svc)
				for n, e := range vars {
					if !isStorageEnv(n) {
						continue
					}
					if !uses {
						t.Errorf("%s: %s set, but it keeps no files (or opted out, or is a migration Job)", workload, n)
					}
					if strings.HasPrefix(n, "AWS_") && (e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil) {
						t.Errorf("%s: %s must come from a secretKeyRef, got %+v", workload, n, e)
					}
				}
			}
			for svc, want := range tc.plain {
				for n, v := range want {
					if got, ok := env["Deployment/"+svc][n]; !ok || got.Value != v {
						t.Errorf("%s: %s = %q (set: %v), want %q", svc, n, got.Value, ok, v)
					}
				}
			}
			for svc, names := range tc.absent {
				for _, n := range names {
					if _, ok := env["Deployment/"+svc][n]; ok {
						t.Errorf("%s: %s set, want it absent", svc, n)
					}
				}
			}
			for svc, refs := range tc.creds {
				for i, n := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"} {
					e := env["Deployment/"+svc][n]
					if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
						e.ValueFrom.SecretKeyRef.Name != refs[i].secret || e.ValueFrom.SecretKeyRef.Key != refs[i].key {
						t.Errorf("%s: %s from %+v, want secret %s key %s", svc, n, e.ValueFrom, refs[i].secret, refs[i].key)
					}
				}
			}
			// Egress to the endpoint for exactly the services that use it.
			for _, svc := range []string{"gateway", "auth-tokens", "transactions", "customers-invoices", "bills-tags", "reports"} {
				uses := slices.Contains(storageServices, svc) && !slices.Contains(tc.without, svc)
				if got := slices.Contains(egressPorts(objs, svc), tc.port); got != uses {
					t.Errorf("%s: NetworkPolicy egress to port %d = %v, want %v", svc, tc.port, got, uses)
				}
			}
			for _, o := range objs {
				switch x := o.Typed.(type) {
				case *corev1.Secret:
					// Inline keys land in the chart's Secret of each storage service, nowhere else.
					inline := strings.Contains(tc.values, "inline-secret-key")
					svc := x.Labels[labelName]
					want := inline && slices.Contains(storageServices, svc)
					if got := string(x.Data["AWS_SECRET_ACCESS_KEY"]); (got == "inline-secret-key") != want {
						t.Errorf("Secret/%s: AWS_SECRET_ACCESS_KEY %q, want it there: %v", x.Name, got, want)
					}
					if want && string(x.Data["AWS_ACCESS_KEY_ID"]) != "inline-key-id" {
						t.Errorf("Secret/%s: AWS_ACCESS_KEY_ID %q", x.Name, x.Data["AWS_ACCESS_KEY_ID"])
					}
				case *corev1.ServiceAccount:
					want := tc.annotated[x.Labels[labelName]]
					if got := x.Annotations["eks.amazonaws.com/role-arn"]; got != want {
						t.Errorf("ServiceAccount/%s: role-arn %q, want %q", x.Name, got, want)
					}
				}
			}
		})
	}
}

// TestChartTmpSize: every Deployment's /tmp is a size-limited emptyDir:
// 1Gi for reports (its XLSX export spills the sheet there), 64Mi for the
// others, and a service's tmpSizeLimit value overrides it.
func TestChartTmpSize(t *testing.T) {
	limits := func(objs []Object) map[string]string {
		out := map[string]string{}
		for _, o := range objs {
			d, ok := o.Typed.(*appsv1.Deployment)
			if !ok {
				continue
			}
			for _, v := range d.Spec.Template.Spec.Volumes {
				if v.Name == "tmp" && v.EmptyDir != nil && v.EmptyDir.SizeLimit != nil {
					out[d.Labels[labelName]] = v.EmptyDir.SizeLimit.String()
				}
			}
		}
		return out
	}
	got := limits(render(t))
	if len(got) < 5 || got["reports"] != "1Gi" || got["transactions"] != "64Mi" || got["gateway"] != "64Mi" {
		t.Fatalf("tmp size limits %v, want reports 1Gi and 64Mi elsewhere", got)
	}
	got = limits(render(t, writeValues(t, "services:\n  transactions:\n    tmpSizeLimit: 256Mi\n")))
	if got["transactions"] != "256Mi" || got["reports"] != "1Gi" {
		t.Fatalf("with transactions.tmpSizeLimit=256Mi: %v", got)
	}
}
