package soak

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/segmentio/kafka-go"

	"github.com/acctsuite/acct/tools/internal/stack"
)

// Fault kinds.
const (
	FaultKill9        = "kill9"
	FaultBroker       = "broker_outage"
	FaultPostgres     = "postgres_restart"
	FaultRelayLeader  = "relay_leader_kill"
	FaultReceiver     = "receiver_downtime"
	relayLeaderTarget = "outbox relay leader"
	receiversTarget   = "webhook receivers"
)

type fault struct{ kind, target string }

// faultPlan: kill -9 of every service process in turn (replicas, the
// webhooks service and the gateway included), the broker's outage,
// PostgreSQL's restart, the relay leader's kill and the webhook
// receivers' downtime (the platforms' side, not the suite's: they are not
// killed one by one).
func faultPlan(st *stack.Stack) []fault {
	var out []fault
	receivers := false
	for _, name := range st.ProcNames() {
		switch {
		case st.IsReceiver(name):
			receivers = true
		case name != "broker":
			out = append(out, fault{FaultKill9, name})
		}
	}
	out = append(out, fault{FaultBroker, "broker"}, fault{FaultPostgres, "postgres"}, fault{FaultRelayLeader, relayLeaderTarget})
	if receivers {
		out = append(out, fault{FaultReceiver, receiversTarget})
	}
	return out
}

const readyTimeout = 2 * time.Minute

func injectFault(ctx context.Context, st *stack.Stack, fl fault, cfg Config) FaultReport {
	rep := FaultReport{Kind: fl.kind, Target: fl.target, At: time.Now().UTC()}
	fail := func(format string, args ...any) FaultReport {
		rep.Violations = append(rep.Violations, fmt.Sprintf(format, args...))
		return rep
	}
	t0 := time.Now()
	switch fl.kind {
	case FaultKill9:
		p := st.Proc(fl.target)
		p.Kill()
		if !sleep(ctx, time.Second) {
			return rep
		}
		if err := p.Restart(); err != nil {
			return fail("restart %s: %v", fl.target, err)
		}
		if err := st.WaitReady(ctx, fl.target, readyTimeout); err != nil {
			return fail("%s after kill -9: %v", fl.target, err)
		}
	case FaultBroker:
		before, err := highWatermarks(st.BrokerAddr)
		if err != nil {
			return fail("broker offsets before the outage: %v", err)
		}
		p := st.Proc("broker")
		p.Stop(10 * time.Second)
		if !sleep(ctx, cfg.BrokerOutage) {
			return rep
		}
		if err := p.Restart(); err != nil {
			return fail("restart the broker: %v", err)
		}
		if err := st.WaitReady(ctx, "broker", readyTimeout); err != nil {
			return fail("broker after the outage: %v", err)
		}
		after, err := highWatermarks(st.BrokerAddr)
		if err != nil {
			return fail("broker offsets after the outage: %v", err)
		}
		var msgs int64
		for tp, off := range before {
			msgs += off
			if after[tp] < off {
				rep.Violations = append(rep.Violations, fmt.Sprintf("broker lost messages of %s: high watermark %d before the outage, %d after", tp, off, after[tp]))
			}
		}
		rep.Note = fmt.Sprintf("broker data survived (%d partitions, %d messages kept in %s)", len(before), msgs, st.BrokerDataDir())
	case FaultPostgres:
		if err := st.RestartPostgres("immediate", 2*time.Second); err != nil {
			return fail("restart PostgreSQL: %v", err)
		}
		for _, name := range st.ProcNames() {
			if err := st.WaitReady(ctx, name, readyTimeout); err != nil {
				rep.Violations = append(rep.Violations, fmt.Sprintf("%s after the PostgreSQL restart: %v", name, err))
			}
		}
	case FaultReceiver:
		// Every platform's receiver stops answering (connection refused)
		// for the downtime; the webhooks service retries on its schedule.
		retriesBefore := webhookRetries(st)
		var names []string
		for _, name := range st.ProcNames() {
			if st.IsReceiver(name) {
				names = append(names, name)
				st.Proc(name).Stop(10 * time.Second)
			}
		}
		if !sleep(ctx, cfg.ReceiverDowntime) {
			return rep
		}
		// The attempts refused meanwhile: evidence that the fault bit (the
		// counter restarts with the process, so a kill of the webhooks
		// service during the downtime would hide them).
		rep.RefusedAttempts = max(0, webhookRetries(st)-retriesBefore)
		for _, name := range names {
			if err := st.Proc(name).Restart(); err != nil {
				return fail("restart %s: %v", name, err)
			}
			if err := st.WaitReady(ctx, name, readyTimeout); err != nil {
				return fail("%s after its downtime: %v", name, err)
			}
		}
		rep.Note = fmt.Sprintf("%d receivers refused connections for %s, %d attempts refused meanwhile", len(names), cfg.ReceiverDowntime, rep.RefusedAttempts)
	case FaultRelayLeader:
		leader, replicas, err := relayLeader(st)
		if err != nil {
			return fail("relay leader: %v", err)
		}
		rep.Target = leader
		st.Proc(leader).Kill()
		killed := time.Now()
		var standby string
		for deadline := time.Now().Add(readyTimeout); standby == "" && time.Now().Before(deadline); {
			for _, r := range replicas {
				if r != leader && leading(st.ProcURLs[r]) {
					standby = r
				}
			}
			if standby == "" && !sleep(ctx, 100*time.Millisecond) {
				return rep
			}
		}
		if standby == "" {
			rep.Violations = append(rep.Violations, fmt.Sprintf("no standby of %s took the relay over within %s", leader, readyTimeout))
		} else {
			rep.Takeover = Duration(time.Since(killed))
			rep.Note = standby + " leads now"
		}
		if err := st.Proc(leader).Restart(); err != nil {
			return fail("restart %s: %v", leader, err)
		}
		if err := st.WaitReady(ctx, leader, readyTimeout); err != nil {
			return fail("%s after kill -9: %v", leader, err)
		}
	}
	rep.Downtime = Duration(time.Since(t0))
	return rep
}

// relayLeader finds the process whose outbox relay leads among the
// replicated service's processes (outbox_relay_leading 1 on /metrics).
func relayLeader(st *stack.Stack) (string, []string, error) {
	var replicas []string
	for _, name := range st.ProcNames() {
		if name == "transactions" || strings.HasPrefix(name, "transactions-") {
			replicas = append(replicas, name)
		}
	}
	if len(replicas) < 2 {
		return "", nil, fmt.Errorf("transactions runs %d process(es): no standby (stack.Options.Replicas)", len(replicas))
	}
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		for _, r := range replicas {
			if leading(st.ProcURLs[r]) {
				return r, replicas, nil
			}
		}
	}
	return "", nil, fmt.Errorf("none of %v leads", replicas)
}

// leading reads the outbox_relay_leading gauge of a service process.
func leading(base string) bool {
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Get(base + "/metrics")
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == "outbox_relay_leading" {
			v, _ := strconv.ParseFloat(f[1], 64)
			return v == 1
		}
	}
	return false
}

// webhookRetries adds webhooks_attempts_total{outcome="retry"} (attempts
// not answered 2xx, to be retried) over the webhooks service's processes.
func webhookRetries(st *stack.Stack) int {
	c := &http.Client{Timeout: 5 * time.Second}
	total := 0
	for _, name := range st.ProcNames() {
		if name != "webhooks" && !strings.HasPrefix(name, "webhooks-") {
			continue
		}
		resp, err := c.Get(st.ProcURLs[name] + "/metrics")
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) == 2 && f[0] == `webhooks_attempts_total{outcome="retry"}` {
				v, _ := strconv.ParseFloat(f[1], 64)
				total += int(v)
			}
		}
		resp.Body.Close()
	}
	return total
}

// highWatermarks reads every partition's last offset from the broker.
func highWatermarks(addr string) (map[string]int64, error) {
	conn, err := kafka.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	parts, err := conn.ReadPartitions()
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	for _, p := range parts {
		lc, err := kafka.DialLeader(context.Background(), "tcp", net.JoinHostPort(p.Leader.Host, strconv.Itoa(p.Leader.Port)), p.Topic, p.ID)
		if err != nil {
			return nil, fmt.Errorf("%s/%d: %w", p.Topic, p.ID, err)
		}
		_ = lc.SetDeadline(time.Now().Add(10 * time.Second))
		off, err := lc.ReadLastOffset()
		lc.Close()
		if err != nil {
			return nil, fmt.Errorf("%s/%d: %w", p.Topic, p.ID, err)
		}
		out[fmt.Sprintf("%s/%d", p.Topic, p.ID)] = off
	}
	return out, nil
}
