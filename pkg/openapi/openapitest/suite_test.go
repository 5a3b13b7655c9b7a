package openapitest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func doc(path, summary string) string {
	return `openapi: 3.0.3
info: {title: t, version: "1"}
paths:
  ` + path + `:
    get:
      summary: ` + summary + `
      responses:
        "200": {description: ok}
`
}

func TestMergeWithTheSuite(t *testing.T) {
	dir := t.TempDir()
	write := func(svc, body string) {
		if err := os.MkdirAll(filepath.Join(dir, svc), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, svc, "openapi.yaml"), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("a", doc("/a", "mine"))
	write("b", doc("/b", "theirs"))
	if err := MergeWithTheSuite(dir, "a", []byte(doc("/a", "mine"))); err != nil {
		t.Fatalf("distinct paths: %v", err)
	}
	// Another service documenting the same path differently conflicts.
	write("c", doc("/a", "someone else's"))
	if err := MergeWithTheSuite(dir, "a", []byte(doc("/a", "mine"))); err == nil || !strings.Contains(err.Error(), "merge") {
		t.Fatalf("a conflicting path merged: %v", err)
	}
	if err := MergeWithTheSuite(t.TempDir(), "a", []byte(doc("/a", "x"))); err == nil {
		t.Fatal("no other documents: no error")
	}
}
