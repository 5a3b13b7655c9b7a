package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// wrkLoad runs wrk (closed loop, conns connections over threads threads)
// against url for d and reads its summary. wrk is C and event-driven: on a
// machine whose cores the servers share with the load generator it leaves
// them more CPU than a Go client would, so the servers, not the generator,
// are what saturates.
func wrkLoad(ctx context.Context, bin, name, url, token string, conns, threads int, d time.Duration) (loadResult, error) {
	args := []string{"-t", strconv.Itoa(threads), "-c", strconv.Itoa(conns), "-d", fmt.Sprintf("%ds", int(d.Seconds())), "--latency", "--timeout", "5s"}
	if token != "" {
		args = append(args, "-H", "Authorization: Bearer "+token)
	}
	out, err := exec.CommandContext(ctx, bin, append(args, url)...).CombinedOutput()
	if err != nil {
		return loadResult{}, fmt.Errorf("%s: wrk: %v: %s", name, err, out)
	}
	res, err := parseWrk(out)
	if err != nil {
		return loadResult{}, fmt.Errorf("%s: %w:\n%s", name, err, out)
	}
	res.name = name
	return res, nil
}

var (
	wrkPercentile = regexp.MustCompile(`^\s*(50|90|99)%\s+([0-9.]+)(us|ms|s)\s*$`)
	wrkRequests   = regexp.MustCompile(`^\s*(\d+) requests in `)
	wrkRate       = regexp.MustCompile(`^Requests/sec:\s+([0-9.]+)`)
	wrkNon2xx     = regexp.MustCompile(`^\s*Non-2xx or 3xx responses:\s+(\d+)`)
	wrkSocketErrs = regexp.MustCompile(`^\s*Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
)

// parseWrk reads wrk's --latency summary.
func parseWrk(out []byte) (loadResult, error) {
	var r loadResult
	var haveRate bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := wrkPercentile.FindStringSubmatch(line); m != nil {
			v, _ := strconv.ParseFloat(m[2], 64)
			unit := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second}[m[3]]
			d := time.Duration(v * float64(unit)).Round(time.Microsecond)
			switch m[1] {
			case "50":
				r.p50 = d
			case "90":
				r.p90 = d
			case "99":
				r.p99 = d
			}
		}
		if m := wrkRequests.FindStringSubmatch(line); m != nil {
			r.requests, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := wrkRate.FindStringSubmatch(line); m != nil {
			r.rps, _ = strconv.ParseFloat(m[1], 64)
			haveRate = true
		}
		if m := wrkNon2xx.FindStringSubmatch(line); m != nil {
			n, _ := strconv.ParseInt(m[1], 10, 64)
			r.errors += n
		}
		if m := wrkSocketErrs.FindStringSubmatch(line); m != nil {
			for _, s := range m[1:] {
				n, _ := strconv.ParseInt(s, 10, 64)
				r.errors += n
			}
		}
	}
	if !haveRate || r.p50 == 0 {
		return loadResult{}, fmt.Errorf("unexpected wrk output")
	}
	if strings.Contains(string(out), "requests in 0.") {
		return loadResult{}, fmt.Errorf("wrk ran for less than a second")
	}
	return r, nil
}
