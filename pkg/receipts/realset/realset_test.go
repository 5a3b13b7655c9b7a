package realset

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLoad(t *testing.T) {
	all, err := Load("../testdata/real")
	if err != nil {
		t.Fatal(err)
	}
	folders := map[string]int{}
	for _, r := range all {
		folders[r.Folder]++
		if _, err := os.Stat(r.Path); err != nil || r.Total <= 0 || r.Vendor == "" {
			t.Fatalf("%+v: %v", r, err)
		}
	}
	if len(all) != 80 || folders["us-restaurants"] != 51 || folders["de-retail"] != 24 || folders["pdf-invoices"] != 5 {
		t.Fatalf("%d receipts: %v", len(all), folders)
	}
	if _, err := Load(t.TempDir()); err == nil {
		t.Fatal("an empty folder loaded")
	}
	bad := t.TempDir()
	_ = os.MkdirAll(filepath.Join(bad, "x"), 0o755)
	_ = os.WriteFile(filepath.Join(bad, "x", "truth.jsonl"), []byte(`{"file": "a.jpg", "total_norm": "twelve"}`+"\n"), 0o644)
	if _, err := Load(bad); err == nil {
		t.Fatal("a total that is not a number loaded")
	}
}
