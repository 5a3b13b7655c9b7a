package main

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"strconv"
)

// pgbenchResult is what the bench reads from pgbench's summary.
type pgbenchResult struct {
	processed int64
	failed    int64
	tps       float64
}

var (
	pgbenchProcessed = regexp.MustCompile(`^number of transactions actually processed: (\d+)`)
	pgbenchFailed    = regexp.MustCompile(`^number of failed transactions: (\d+)`)
	pgbenchTPS       = regexp.MustCompile(`^tps = ([0-9.]+) \((?:without initial connection time|excluding connections establishing)\)`)
)

// parsePgbench reads pgbench's summary: transactions processed, failed
// (PostgreSQL 15 and later print it) and tps without the connection time
// (14 says "excluding connections establishing", 15 "without initial
// connection time").
func parsePgbench(out []byte) (pgbenchResult, error) {
	var r pgbenchResult
	var haveTPS bool
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if m := pgbenchProcessed.FindStringSubmatch(line); m != nil {
			r.processed, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := pgbenchFailed.FindStringSubmatch(line); m != nil {
			r.failed, _ = strconv.ParseInt(m[1], 10, 64)
		}
		if m := pgbenchTPS.FindStringSubmatch(line); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return pgbenchResult{}, fmt.Errorf("pgbench tps %q: %w", m[1], err)
			}
			r.tps, haveTPS = v, true
		}
	}
	if !haveTPS || r.processed == 0 {
		return pgbenchResult{}, fmt.Errorf("unexpected pgbench output")
	}
	return r, nil
}
