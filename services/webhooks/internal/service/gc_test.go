package service

import (
	"runtime/debug"
	"testing"
)

// Without GOGC the service collects at GCPercent; with it, GOGC rules.
func TestTuneGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
	TuneGC(func(string) (string, bool) { return "", false })
	if cur := debug.SetGCPercent(100); cur != GCPercent {
		t.Fatalf("without GOGC the runtime collects at %d, want %d", cur, GCPercent)
	}
	TuneGC(func(string) (string, bool) { return "100", true })
	if cur := debug.SetGCPercent(100); cur != 100 {
		t.Fatalf("with GOGC set the runtime was changed to %d", cur)
	}
}
