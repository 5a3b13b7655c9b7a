package main

import (
	"os"
	"testing"
	"time"
)

const wrkSample = `Running 8s test @ http://127.0.0.1:8080/whoami
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.41ms    1.02ms  28.81ms   90.12%
    Req/Sec    11.93k     1.07k   14.02k    71.25%
  Latency Distribution
     50%    1.19ms
     75%    1.62ms
     90%    2.30ms
     99%    5.10ms
  190139 requests in 8.00s, 40.25MB read
  Socket errors: connect 0, read 0, write 0, timeout 2
  Non-2xx or 3xx responses: 3
Requests/sec:  23766.75
Transfer/sec:      5.03MB
`

func TestParseWrk(t *testing.T) {
	r, err := parseWrk([]byte(wrkSample))
	if err != nil {
		t.Fatal(err)
	}
	want := loadResult{requests: 190139, errors: 5, rps: 23766.75, p50: 1190 * time.Microsecond, p90: 2300 * time.Microsecond, p99: 5100 * time.Microsecond}
	if r != want {
		t.Fatalf("parseWrk = %+v, want %+v", r, want)
	}
	if _, err := parseWrk([]byte("unable to connect to 127.0.0.1:1 Connection refused\n")); err == nil {
		t.Fatal("parseWrk accepted an error message")
	}
}

func TestProcessCPU(t *testing.T) {
	self := []int{os.Getpid()}
	// Spin until the process has used 100 ms more CPU; on a loaded machine
	// that takes longer than 100 ms of wall time, so only a reading that
	// never grows fails (after 10 s).
	before := processCPU(self)
	after := before
	for start := time.Now(); after-before < 100*time.Millisecond; after = processCPU(self) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("CPU went from %s to %s over 10 s of spinning", before, after)
		}
		for spin := time.Now(); time.Since(spin) < 20*time.Millisecond; {
		}
	}
	if processCPU([]int{-1}) != 0 {
		t.Fatal("a missing process has CPU time")
	}
}
