// Package apidocs builds the gateway's merged OpenAPI document: it fetches
// each upstream's /openapi.json in the background and periodically, keeps
// the last good copy of each while an upstream is down, and merges them with
// pkg/openapi into the document served at GET /openapi.json.
package apidocs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/acctsuite/acct/pkg/openapi"
)

// maxDocBytes bounds one upstream document.
const maxDocBytes = 8 << 20

// Title names the merged document (and the /docs page): it describes the
// whole suite, not whichever service happens to merge first.
const Title = "acct — accounting API suite"

// description introduces the merged document.
const description = "The accounting API suite behind one gateway: every service's endpoints, " +
	"authenticated with bearer tokens from POST /oauth2/token."

// emptyDoc is served until at least one upstream answered.
var emptyDoc = []byte(`{"openapi":"3.0.3","info":{"title":"` + Title + `","version":"1"},"paths":{}}`)

// Aggregator holds the merged document.
type Aggregator struct {
	names    []string          // sorted, for a stable merge order
	urls     map[string]string // name → document URL
	client   *http.Client
	interval time.Duration
	logger   *slog.Logger

	mu     sync.Mutex             // guards docs and serialises merges
	docs   map[string]*openapi3.T // last good document per upstream
	merged atomic.Pointer[[]byte]
}

// New makes an aggregator over upstreams (service name → base URL).
func New(upstreams map[string]string, interval time.Duration, logger *slog.Logger) *Aggregator {
	a := &Aggregator{
		urls: map[string]string{},
		// A fresh connection per refresh: the fetch runs every few
		// seconds at most, and an idle keep-alive connection would race
		// the upstream's own idle timeout.
		client:   &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}},
		interval: interval,
		logger:   logger,
		docs:     map[string]*openapi3.T{},
	}
	for name, base := range upstreams {
		a.names = append(a.names, name)
		a.urls[name] = strings.TrimRight(base, "/") + "/openapi.json"
	}
	slices.Sort(a.names)
	a.merged.Store(&emptyDoc)
	return a
}

// Document is the current merged document (JSON).
func (a *Aggregator) Document() []byte { return *a.merged.Load() }

// Run refreshes now and then every interval until ctx ends.
func (a *Aggregator) Run(ctx context.Context) {
	t := time.NewTicker(a.interval)
	defer t.Stop()
	for {
		if err := a.Refresh(ctx); err != nil && ctx.Err() == nil {
			a.logger.WarnContext(ctx, "openapi refresh incomplete", slog.String("error", err.Error()))
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// Refresh fetches every upstream's document once and re-merges. Upstreams
// that fail keep their previous document; the error lists them.
func (a *Aggregator) Refresh(ctx context.Context) error {
	fetched := make([]*openapi3.T, len(a.names))
	errs := make([]error, len(a.names))
	var wg sync.WaitGroup
	for i, name := range a.names {
		wg.Go(func() { fetched[i], errs[i] = a.fetch(ctx, name) })
	}
	wg.Wait()

	a.mu.Lock()
	defer a.mu.Unlock()
	for i, name := range a.names {
		if fetched[i] != nil {
			a.docs[name] = fetched[i]
		}
	}
	var docs []*openapi3.T
	for _, name := range a.names {
		if d, ok := a.docs[name]; ok {
			docs = append(docs, d)
		}
	}
	if len(docs) > 0 {
		merged, err := openapi.Merge(docs...)
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("merge: %w", err))...)
		}
		// Merge keeps the first document's info; the suite has its own.
		info := openapi3.Info{Title: Title, Description: description, Version: "1"}
		if merged.Info != nil && merged.Info.Version != "" {
			info.Version = merged.Info.Version
		}
		merged.Info = &info
		data, err := json.Marshal(merged)
		if err != nil {
			return errors.Join(append(errs, fmt.Errorf("encode: %w", err))...)
		}
		a.merged.Store(&data)
	}
	return errors.Join(errs...)
}

func (a *Aggregator) fetch(ctx context.Context, name string) (*openapi3.T, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.urls[name], nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := a.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: status %d", name, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDocBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: read: %w", name, err)
	}
	doc, err := openapi.Load(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return doc, nil
}
