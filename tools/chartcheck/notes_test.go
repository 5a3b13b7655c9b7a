package chartcheck

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestNotes renders templates/NOTES.txt and checks the token instructions for each way of reaching
// the gateway. helm template skips NOTES.txt, so a copy of the chart wraps it in a define and emits
// it as a JSON string from an ordinary template.
func TestNotes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "acct")
	if err := os.CopyFS(dir, os.DirFS(chartDir)); err != nil {
		t.Fatal(err)
	}
	notesPath := filepath.Join(dir, "templates", "NOTES.txt")
	notes, err := os.ReadFile(notesPath)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"_notes.tpl": `{{- define "test.notes" -}}` + string(notes) + `{{- end -}}`,
		"notes.yaml": `notes: {{ include "test.notes" . | toJson }}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, "templates", name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Remove(notesPath); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		values string
		want   []string
	}{
		{"port-forward", "", []string{"kubectl -n acct port-forward svc/acct-gateway 8080:80", "admin create-client", "/oauth2/token", "grant_type=client_credentials"}},
		{"ingress", filepath.Join(chartDir, "ci", "minimal-external.yaml"), []string{"https://api.example.com", "/oauth2/token"}},
		{"bootstrap secret", filepath.Join(chartDir, "ci", "bundled.yaml"), []string{"https://api.acct.local", "SECRET=acct-auth-tokens", "BOOTSTRAP_CLIENT_SECRET"}},
		{"storage off", "", []string{"503 Unavailable", "transactions: receipts", "reports: exports", "storage.enabled=true"}},
		{"storage on", filepath.Join(chartDir, "ci", "storage.yaml"), []string{"Object storage (https://s3.storage.example.com:9000):", "reports: s3://acct-exports", "transactions: s3://acct-files"}},
		{"plaintext kafka, open egress", "", []string{"Before production:", "Kafka: plaintext, no authentication", "PostgreSQL and Kafka: reachable on their ports at any address", "networkPolicy.peers"}},
		{"managed kafka over SASL", filepath.Join(chartDir, "ci", "external-sasl.yaml"), []string{"Before production:", "PostgreSQL and Kafka: reachable"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"template", "acct", dir, "--namespace", "acct", "--show-only", "templates/notes.yaml"}
			if tc.values != "" {
				args = append(args, "--values", tc.values)
			}
			out, err := helm(t).Run(context.Background(), args...)
			if err != nil {
				t.Fatal(err)
			}
			var doc struct{ Notes string }
			if err := yaml.Unmarshal(out, &doc); err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(doc.Notes, w) {
					t.Errorf("NOTES lack %q:\n%s", w, doc.Notes)
				}
			}
			if tc.name == "storage on" && strings.Contains(doc.Notes, "503") {
				t.Errorf("NOTES warn about 503 with storage on:\n%s", doc.Notes)
			}
			// Bundled with Strimzi users and CloudNativePG: nothing left to secure.
			if tc.name == "bootstrap secret" && strings.Contains(doc.Notes, "Before production") {
				t.Errorf("NOTES ask to secure a bundled, authenticated install:\n%s", doc.Notes)
			}
			if tc.name == "managed kafka over SASL" && strings.Contains(doc.Notes, "plaintext") {
				t.Errorf("NOTES call TLS with SASL plaintext:\n%s", doc.Notes)
			}
		})
	}
}
