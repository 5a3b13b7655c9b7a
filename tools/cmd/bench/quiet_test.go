package main

import (
	"context"
	"runtime"
	"testing"
	"time"
)

func TestCPUTimes(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/stat is Linux's")
	}
	busy1, total1, ok := cpuTimes()
	if !ok {
		t.Fatal("cpuTimes: /proc/stat not read")
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	for time.Now().Before(deadline) { // some busy time to see
	}
	busy2, total2, ok := cpuTimes()
	if !ok || busy1 > total1 || busy2 < busy1 || total2 <= total1 || busy2-busy1 > total2-total1 {
		t.Fatalf("cpuTimes: busy %d of %d, then %d of %d", busy1, total1, busy2, total2)
	}
}

func TestWaitQuietStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := waitQuiet(ctx, time.Minute); err == nil && runtime.GOOS == "linux" {
		t.Fatal("waitQuiet on a cancelled context: no error")
	}
}
