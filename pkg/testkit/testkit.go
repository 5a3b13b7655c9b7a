// Package testkit holds the shared helpers of integration tests: a fresh
// PostgreSQL database per test (from one private cluster per test process, or
// from TEST_DATABASE_URL), an in-process Kafka-protocol broker that survives
// stop/restart, and a Fiber app served on a real loopback port.
//
// Use it from TestMain so the private cluster is stopped when the tests end:
//
//	func TestMain(m *testing.M) { os.Exit(testkit.Main(m)) }
//
// A watchdog process also stops the cluster if the test binary dies without
// reaching the end of Main (timeout panic, SIGKILL), so no cluster is leaked.
package testkit

import (
	"os"
	"os/signal"
	"sync"
	"syscall"
	"testing"
)

var signalOnce sync.Once

// Main runs the tests, then stops the private PostgreSQL cluster (if one was
// started) and returns the exit code for os.Exit.
func Main(m *testing.M) int {
	watchSignals()
	code := m.Run()
	stopCluster()
	return code
}

// watchSignals stops the private cluster when the test process is
// interrupted, so Ctrl-C never leaves a postmaster behind.
func watchSignals() {
	signalOnce.Do(func() {
		ch := make(chan os.Signal, 1)
		signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
		go func() {
			sig := <-ch
			stopCluster()
			signal.Stop(ch)
			if s, ok := sig.(syscall.Signal); ok {
				os.Exit(128 + int(s))
			}
			os.Exit(1)
		}()
	})
}
