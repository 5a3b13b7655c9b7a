// Command webhook-echo is a small local webhook receiver for development and
// tests: point a webhook endpoint of the suite at it and it verifies each
// delivery's Standard Webhooks signature (pkg/webhooksig), prints one line
// per delivery, and counts what it received, so a test can check that
// every event arrived and how many arrived twice.
//
// Configuration (environment, each overridable by its flag):
//
//	WEBHOOK_ECHO_ADDR  -addr    address to listen on (default 127.0.0.1:8099)
//	WEBHOOK_SECRET     -secret  signing secret(s), comma-separated; the flag may
//	                            also be repeated. When set, a delivery that
//	                            verifies under none of them gets 401 and a JSON
//	                            error, and is not counted.
//	                   -status  status code of the answer to a delivery (default 204)
//	                   -delay   wait this long before answering (a slow endpoint)
//	                   -quiet   do not print a line per delivery
//	                   -record  append each accepted or refused delivery to this
//	                            file (one JSON line, written before the answer)
//	                            and read it back at start, so that what was
//	                            received survives a stop, a restart or a kill -9
//	                   -max-ids how many distinct webhook-ids to remember
//	                            (default 100000)
//
// Endpoints:
//
//	POST <any path>    a delivery (bodies over 1 MiB get 413)
//	GET  /received     {"count": n, "ids": [...], "duplicates": m, "rejected": k}:
//	                   count is every accepted delivery, ids the distinct
//	                   webhook-ids in arrival order (the last -max-ids only),
//	                   duplicates the accepted deliveries whose id was seen
//	                   before, rejected the deliveries refused with 401
//	GET  /received?full=1
//	                   the same plus "deliveries": per distinct webhook-id, in
//	                   arrival order, {id, type, business_id,
//	                   business_external_id, entity_id, entity_external_id,
//	                   count} read from the body of its first accepted
//	                   delivery (count: how many times it was accepted)
//	GET  /healthz      {"status":"ok"}
//
// Each delivery prints, on stdout:
//
//	<time> id=<webhook-id> type=<type> business_id=<id> verified=yes|no [rejected=<reason>]
//
// where type is the JSON body's "type" and business_id its "business_id"
// (or "data"."business_id"), "-" when absent. SIGINT or SIGTERM stops it
// gracefully.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/acctsuite/acct/pkg/webhooksig"
)

const (
	defaultAddr = "127.0.0.1:8099"
	// maxBody is the largest delivery accepted; larger ones get 413.
	maxBody = 1 << 20
	// maxIDs bounds the remembered webhook-ids, so a long soak cannot
	// exhaust memory; a redelivery of an id older than that is not seen as
	// a duplicate.
	maxIDs = 100000
)

// config is the receiver's configuration.
type config struct {
	Addr    string
	Secrets []string
	Status  int
	Delay   time.Duration
	Quiet   bool
	// Record is the file every accepted or refused delivery is appended
	// to, and read back from at start ("": memory only).
	Record string
	// MaxIDs bounds the remembered webhook-ids (0: the default).
	MaxIDs int
}

// Validate checks the address, the answer and every secret.
func (c *config) Validate() error {
	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		return fmt.Errorf("addr %q: %w", c.Addr, err)
	}
	if c.Status < 200 || c.Status > 599 {
		return fmt.Errorf("status must be in 200..599, got %d", c.Status)
	}
	if c.Delay < 0 {
		return fmt.Errorf("delay must not be negative, got %s", c.Delay)
	}
	if c.MaxIDs < 0 {
		return fmt.Errorf("max-ids must not be negative, got %d", c.MaxIDs)
	}
	for i, s := range c.Secrets {
		if _, err := webhooksig.ParseSecret(s); err != nil {
			return fmt.Errorf("secret %d: %w", i+1, err)
		}
	}
	return nil
}

// secretList is the -secret flag: repeatable, each value comma-separated.
// The first use replaces the secrets read from the environment.
type secretList struct {
	secrets *[]string
	set     bool
}

func (s *secretList) String() string {
	if s.secrets == nil || len(*s.secrets) == 0 {
		return ""
	}
	return strconv.Itoa(len(*s.secrets)) + " secret(s)" // never print secrets
}

func (s *secretList) Set(v string) error {
	if !s.set {
		*s.secrets = nil
		s.set = true
	}
	*s.secrets = append(*s.secrets, splitSecrets(v)...)
	return nil
}

func splitSecrets(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// loadConfig reads the environment through getenv, then lets flags
// override it.
func loadConfig(args []string, getenv func(string) string) (config, error) {
	cfg := config{Addr: defaultAddr, Status: http.StatusNoContent}
	if v := getenv("WEBHOOK_ECHO_ADDR"); v != "" {
		cfg.Addr = v
	}
	cfg.Secrets = splitSecrets(getenv("WEBHOOK_SECRET"))

	fs := flag.NewFlagSet("webhook-echo", flag.ContinueOnError)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "address to listen on (env WEBHOOK_ECHO_ADDR)")
	fs.Var(&secretList{secrets: &cfg.Secrets}, "secret", "signing secret, whsec_...; repeat or comma-separate for several (env WEBHOOK_SECRET)")
	fs.IntVar(&cfg.Status, "status", cfg.Status, "status code answered to a delivery")
	fs.DurationVar(&cfg.Delay, "delay", cfg.Delay, "wait this long before answering a delivery")
	fs.BoolVar(&cfg.Quiet, "quiet", cfg.Quiet, "do not print a line per delivery")
	fs.StringVar(&cfg.Record, "record", cfg.Record, "append every delivery to this file (JSON lines) and read it back at start")
	fs.IntVar(&cfg.MaxIDs, "max-ids", cfg.MaxIDs, "distinct webhook-ids to remember (default 100000)")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	if fs.NArg() > 0 {
		return cfg, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return cfg, cfg.Validate()
}

// receiver answers deliveries and remembers what it received.
type receiver struct {
	secrets []string
	status  int
	delay   time.Duration
	out     io.Writer // one line per delivery; nil when quiet
	now     func() time.Time
	maxIDs  int

	mu         sync.Mutex
	count      int
	duplicates int
	rejected   int
	seen       map[string]*delivery
	ids        []string // ring of distinct ids, oldest at ids[start]
	start      int
	record     io.Writer // the -record file, nil without one
}

// delivery is what the receiver remembers of one webhook-id: the event
// its first accepted delivery carried and how many times it was accepted.
type delivery struct {
	ID                 string `json:"id"`
	Type               string `json:"type"`
	BusinessID         string `json:"business_id"`
	BusinessExternalID string `json:"business_external_id"`
	EntityID           string `json:"entity_id"`
	EntityExternalID   string `json:"entity_external_id"`
	Count              int    `json:"count"`
}

// recordLine is one line of the -record file: an accepted delivery, or a
// refused one (Rejected holds the reason).
type recordLine struct {
	delivery
	Rejected string `json:"rejected,omitempty"`
}

func newReceiver(cfg config, out io.Writer) *receiver {
	if cfg.Quiet {
		out = nil
	}
	limit := cfg.MaxIDs
	if limit == 0 {
		limit = maxIDs
	}
	return &receiver{
		secrets: cfg.Secrets,
		status:  cfg.Status,
		delay:   cfg.Delay,
		out:     out,
		now:     time.Now,
		maxIDs:  limit,
		seen:    map[string]*delivery{},
	}
}

// openRecord reads what an earlier run of the receiver recorded in path
// back into rc, then appends to it.
func (rc *receiver) openRecord(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		var l recordLine
		if json.Unmarshal(sc.Bytes(), &l) != nil {
			continue // a line cut by a crash mid-write: its delivery was never answered
		}
		if l.Rejected != "" {
			rc.rejected++
			continue
		}
		rc.remember(l.delivery)
	}
	if err := sc.Err(); err != nil {
		f.Close()
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	rc.record = f
	return f, nil
}

func (rc *receiver) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /", rc.deliver)
	mux.HandleFunc("GET /received", rc.received)
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	return mux
}

// deliver handles one delivery.
func (rc *receiver) deliver(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength > maxBody {
		writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: "body over 1 MiB", Code: "too_large"})
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeJSON(w, http.StatusRequestEntityTooLarge, errorBody{Error: "body over 1 MiB", Code: "too_large"})
			return
		}
		writeJSON(w, http.StatusBadRequest, errorBody{Error: "read body: " + err.Error(), Code: "bad_body"})
		return
	}
	at := rc.now()
	id := r.Header.Get(webhooksig.HeaderID)
	verr := rc.verify(r.Header, body, at)
	verified := len(rc.secrets) > 0 && verr == nil
	if err := rc.accept(id, body, verr); err != nil {
		// Not recorded, so not acknowledged: the sender tries again.
		writeJSON(w, http.StatusInternalServerError, errorBody{Error: "record: " + err.Error(), Code: "record"})
		return
	}
	rc.print(at, id, body, verified, verr)

	if rc.delay > 0 {
		t := time.NewTimer(rc.delay)
		select {
		case <-t.C:
		case <-r.Context().Done(): // client gone or server stopping
			t.Stop()
		}
	}
	if verr != nil {
		writeJSON(w, http.StatusUnauthorized, errorBody{Error: verr.Error(), Code: errorCode(verr)})
		return
	}
	if rc.status == http.StatusNoContent {
		w.WriteHeader(rc.status)
		return
	}
	writeJSON(w, rc.status, map[string]any{"id": id, "verified": verified})
}

// verify returns nil when no secret is configured or when the delivery
// verifies under one of the secrets. Otherwise it returns the most telling
// failure: a stale timestamp (the signature matched) over a mismatch.
func (rc *receiver) verify(h http.Header, body []byte, now time.Time) error {
	var failure error
	for _, s := range rc.secrets {
		err := webhooksig.Verify(s, h, body, now, webhooksig.DefaultTolerance)
		if err == nil {
			return nil
		}
		if failure == nil || errors.Is(err, webhooksig.ErrTimestamp) {
			failure = err
		}
	}
	return failure
}

// accept counts a delivery, accepted when verr is nil and refused
// otherwise, and appends it to the -record file first: a delivery is
// answered only once it is on record.
func (rc *receiver) accept(id string, body []byte, verr error) error {
	d := eventOf(body)
	d.ID = id
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.record != nil {
		l := recordLine{delivery: d}
		if verr != nil {
			l.Rejected = errorCode(verr)
		}
		b, err := json.Marshal(l)
		if err != nil {
			return err
		}
		if _, err := rc.record.Write(append(b, '\n')); err != nil {
			return err
		}
	}
	if verr != nil {
		rc.rejected++
		return nil
	}
	rc.remember(d)
	return nil
}

// remember counts an accepted delivery (rc.mu held, or not yet serving).
func (rc *receiver) remember(d delivery) {
	rc.count++
	if d.ID == "" {
		return
	}
	if seen, dup := rc.seen[d.ID]; dup {
		rc.duplicates++
		seen.Count++
		return
	}
	d.Count = 1
	rc.seen[d.ID] = &d
	if len(rc.ids) < rc.maxIDs {
		rc.ids = append(rc.ids, d.ID)
		return
	}
	delete(rc.seen, rc.ids[rc.start])
	rc.ids[rc.start] = d.ID
	rc.start = (rc.start + 1) % len(rc.ids)
}

// receivedBody is the answer of GET /received.
type receivedBody struct {
	Count      int      `json:"count"`
	IDs        []string `json:"ids"`
	Duplicates int      `json:"duplicates"`
	Rejected   int      `json:"rejected"`
	// Deliveries, with ?full=1 only: one per id of IDs, in the same order.
	Deliveries []delivery `json:"deliveries,omitempty"`
}

func (rc *receiver) received(w http.ResponseWriter, r *http.Request) {
	full := r.URL.Query().Get("full")
	rc.mu.Lock()
	ids := make([]string, 0, len(rc.ids))
	ids = append(ids, rc.ids[rc.start:]...)
	ids = append(ids, rc.ids[:rc.start]...)
	res := receivedBody{Count: rc.count, IDs: ids, Duplicates: rc.duplicates, Rejected: rc.rejected}
	if full == "1" || full == "true" {
		res.Deliveries = make([]delivery, len(ids))
		for i, id := range ids {
			res.Deliveries[i] = *rc.seen[id]
		}
	}
	rc.mu.Unlock()
	writeJSON(w, http.StatusOK, res)
}

// print writes the delivery's line.
func (rc *receiver) print(at time.Time, id string, body []byte, verified bool, verr error) {
	if rc.out == nil {
		return
	}
	typ, business := summarize(body)
	yes := "no"
	if verified {
		yes = "yes"
	}
	line := fmt.Sprintf("%s id=%s type=%s business_id=%s verified=%s",
		at.UTC().Format(time.RFC3339Nano), orDash(id), orDash(typ), orDash(business), yes)
	if verr != nil {
		line += " rejected=" + errorCode(verr)
	}
	rc.mu.Lock() // one writer at a time, so lines never interleave
	fmt.Fprintln(rc.out, line)
	rc.mu.Unlock()
}

// summarize takes the event type and business id of a JSON body; a body
// that is not a JSON object yields empty strings.
func summarize(body []byte) (typ, business string) {
	var b struct {
		Type       string `json:"type"`
		BusinessID any    `json:"business_id"`
		Data       struct {
			BusinessID any `json:"business_id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &b) != nil {
		// A body whose "data" is not an object still has a type worth
		// printing.
		var t struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &t)
		return t.Type, ""
	}
	bid := b.BusinessID
	if bid == nil {
		bid = b.Data.BusinessID
	}
	if bid != nil {
		business = fmt.Sprint(bid)
	}
	return b.Type, business
}

// eventOf reads the Standard Webhooks event fields of a body (empty
// strings for what is missing or not a string).
func eventOf(body []byte) delivery {
	var e struct {
		Type               any `json:"type"`
		BusinessID         any `json:"business_id"`
		BusinessExternalID any `json:"business_external_id"`
		Data               any `json:"data"`
	}
	_ = json.Unmarshal(body, &e)
	s := func(v any) string { t, _ := v.(string); return t }
	data, _ := e.Data.(map[string]any)
	return delivery{Type: s(e.Type), BusinessID: s(e.BusinessID), BusinessExternalID: s(e.BusinessExternalID),
		EntityID: s(data["entity_id"]), EntityExternalID: s(data["entity_external_id"])}
}

// orDash keeps the line's fields separable: "-" for empty, and no spaces or
// control characters from untrusted input.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return '_'
		}
		return r
	}, s)
}

type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

func errorCode(err error) string {
	switch {
	case errors.Is(err, webhooksig.ErrMissingHeaders):
		return "missing_headers"
	case errors.Is(err, webhooksig.ErrNoSignature):
		return "no_signature"
	case errors.Is(err, webhooksig.ErrBadSignature):
		return "bad_signature"
	case errors.Is(err, webhooksig.ErrTimestamp):
		return "timestamp"
	default:
		return "invalid"
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// run serves until ctx ends, then stops gracefully. Handlers waiting out
// -delay are released when ctx ends, so the stop is prompt.
func run(ctx context.Context, cfg config, out io.Writer, logger *slog.Logger) error {
	rc := newReceiver(cfg, out)
	if cfg.Record != "" {
		f, err := rc.openRecord(cfg.Record)
		if err != nil {
			return err
		}
		defer f.Close()
	}
	recorded := rc.count + rc.rejected // read back from the record, before any delivery
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           rc.routes(),
		ReadHeaderTimeout: 5 * time.Second,
		IdleTimeout:       time.Minute,
		BaseContext:       func(net.Listener) context.Context { return ctx },
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("webhook-echo listening", "addr", ln.Addr().String(), "secrets", len(cfg.Secrets),
		"status", cfg.Status, "delay", cfg.Delay, "record", cfg.Record, "recorded", recorded)

	select {
	case <-ctx.Done():
	case err := <-served:
		return err
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	logger.Info("webhook-echo stopped")
	return nil
}

func main() {
	cfg, err := loadConfig(os.Args[1:], os.Getenv)
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "webhook-echo: %v\n", err)
		os.Exit(2)
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Stdout, logger); err != nil {
		logger.Error("webhook-echo failed", "err", err)
		os.Exit(1)
	}
}
