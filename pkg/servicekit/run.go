package servicekit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/httpx"
	"github.com/acctsuite/acct/pkg/idempotency"
)

// topicsAtStart bounds the synchronous attempt to create topics at start;
// after it the kit keeps trying in the background (the outbox holds events
// meanwhile, so nothing is lost while the broker is away).
const topicsAtStart = 10 * time.Second

// Run listens on HTTP_ADDR and serves until ctx ends; see Serve.
func (k *Kit) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", k.def.Base.Addr)
	if err != nil {
		return fmt.Errorf("%s: listen %s: %w", k.def.Name, k.def.Base.Addr, err)
	}
	return k.Serve(ctx, ln)
}

// Serve runs the start-up work, starts the background work (admin listener,
// topic creation, outbox relay, consumers, idempotency purge, the service's
// own loops) and serves HTTP on ln until ctx ends. Then it stops accepting,
// drains in-flight requests within SHUTDOWN_TIMEOUT, stops the consumers
// and background loops, and flushes the outbox. Close afterwards.
func (k *Kit) Serve(ctx context.Context, ln net.Listener) error {
	for _, fn := range k.onStart {
		if err := fn(ctx); err != nil {
			_ = ln.Close()
			return fmt.Errorf("%s: start: %w", k.def.Name, err)
		}
	}
	admin, err := k.startAdmin()
	if err != nil {
		_ = ln.Close()
		return err
	}

	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	var wg sync.WaitGroup
	var relayErr error
	if k.def.Data != nil {
		k.ensureTopics(bg, &wg)
		wg.Go(func() { relayErr = k.relay.Run(bg) })
		if len(k.handlers) > 0 {
			c := consumer.New(k.db, consumer.Config{
				Conn:      k.kafka,
				GroupID:   k.def.Name,
				Topics:    slices.Clone(k.topicOrder),
				Stats:     k.consumerStats,
				BatchSize: k.consumerBatchSize(),
				InboxFree: k.inboxFreeTopics(),
			}, k.dispatch, k.log).WithBatchHandler(k.dispatchBatch)
			wg.Go(func() {
				if err := c.Run(bg); err != nil {
					k.log.Error("consumer stopped", slog.Any("error", err))
				}
			})
		}
		wg.Go(func() { k.purgeIdempotencyKeys(bg) })
	}
	if k.jwks != nil {
		wg.Go(func() { k.warmJWKS(bg) })
	}
	for _, fn := range k.background {
		wg.Go(func() { fn(bg) })
	}

	k.log.Info("listening", slog.String("addr", ln.Addr().String()), slog.String("admin_addr", k.adminAddr()))
	serveErr := httpx.ServeListener(ctx, k.app, ln, k.def.Base.ShutdownTimeout)

	// Requests are drained; now the work behind them.
	stop()
	wg.Wait()
	var flushErr error
	if k.relay != nil {
		timeout := max(k.def.Base.ShutdownTimeout, time.Second)
		fctx, cancel := context.WithTimeout(context.Background(), timeout)
		if err := k.relay.Flush(fctx); err != nil {
			if fctx.Err() != nil {
				// A backlog larger than the stop allows: nothing is lost, the
				// rows stay unsent for the next relay to publish.
				err = fmt.Errorf("%w after %s stay in the outbox for the next relay: %w", ErrUnflushed, timeout, err)
			}
			flushErr = fmt.Errorf("flush outbox: %w", err)
		}
		cancel()
	}
	var adminErr error
	if admin != nil {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		adminErr = admin.Shutdown(sctx)
		cancel()
	}
	return errors.Join(serveErr, relayErr, flushErr, adminErr)
}

// startAdmin serves /metrics (and /healthz) on the admin address, when one
// is configured, so scrapers never reach the public listener for them.
func (k *Kit) startAdmin() (*http.Server, error) {
	addr := k.adminAddr()
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s: admin listen %s: %w", k.def.Name, addr, err)
	}
	k.adminLn = ln.Addr()
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(k.metrics, promhttp.HandlerOpts{}))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			k.log.Error("admin listener stopped", slog.Any("error", err))
		}
	}()
	return srv, nil
}

// ensureTopics creates the produced and consumed topics: once
// synchronously, so a healthy start has them before the first request, and
// then in the background until it succeeds.
func (k *Kit) ensureTopics(ctx context.Context, wg *sync.WaitGroup) {
	topics := slices.Clone(k.def.Produces)
	for _, t := range k.topicOrder {
		if !slices.Contains(topics, t) {
			topics = append(topics, t)
		}
	}
	if len(topics) == 0 {
		return
	}
	d := k.def.Data
	try := func(ctx context.Context, timeout time.Duration) error {
		tctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return events.EnsureTopics(tctx, k.kafka, d.TopicPartitions, topics...)
	}
	err := try(ctx, topicsAtStart)
	if err == nil {
		return
	}
	k.log.Warn("cannot create topics yet; retrying in the background (the outbox keeps events meanwhile)",
		slog.Any("error", err))
	wg.Go(func() {
		delay := time.Second
		for {
			if !sleep(ctx, delay) {
				return
			}
			if err := try(ctx, topicsAtStart); err == nil {
				k.log.Info("topics created")
				k.relay.Notify()
				return
			} else if ctx.Err() == nil {
				k.log.Warn("cannot create topics yet", slog.Any("error", err))
			}
			delay = min(delay*2, 30*time.Second)
		}
	})
}

// dispatch is the consumer handler: the topic's handlers in order, in the
// inbox transaction.
func (k *Kit) dispatch(ctx context.Context, tx bun.Tx, e events.Event) error {
	for _, h := range k.handlers[e.Topic] {
		var err error
		if h.one != nil {
			err = h.one(ctx, tx, e)
		} else {
			err = h.batch.Single()(ctx, tx, e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// dispatchBatch runs the handlers of a batch's topic (a batch is one
// partition's, so one topic's): a batch handler once with every event, a
// one-event handler for each.
func (k *Kit) dispatchBatch(ctx context.Context, tx bun.Tx, es []events.Event) error {
	if err := k.lockBusinesses(ctx, tx, es); err != nil {
		return err
	}
	for _, h := range k.handlers[es[0].Topic] {
		if h.batch != nil {
			if err := h.batch(ctx, tx, es); err != nil {
				return err
			}
			continue
		}
		for _, e := range es {
			if err := h.one(ctx, tx, e); err != nil {
				return fmt.Errorf("event %s: %w", e.ID, err)
			}
		}
	}
	return nil
}

// lockBusinesses takes Definition.LockBusiness for every business of a
// batch that one-event handlers apply, sorted, before any of them runs.
func (k *Kit) lockBusinesses(ctx context.Context, tx bun.Tx, es []events.Event) error {
	if k.def.LockBusiness == nil || len(es) < 2 || !slices.ContainsFunc(k.handlers[es[0].Topic], func(h topicHandler) bool { return h.one != nil }) {
		return nil
	}
	ids := make([]uuid.UUID, 0, len(es))
	for _, e := range es {
		if id, err := uuid.Parse(e.Subject); err == nil {
			ids = append(ids, id)
		}
	}
	slices.SortFunc(ids, func(a, b uuid.UUID) int { return bytes.Compare(a[:], b[:]) })
	for _, id := range slices.Compact(ids) {
		if err := k.def.LockBusiness(ctx, tx, id); err != nil {
			return fmt.Errorf("lock business %s: %w", id, err)
		}
	}
	return nil
}

// consumerBatchSize is CONSUMER_BATCH_SIZE, else the service's default.
func (k *Kit) consumerBatchSize() int {
	if n := k.def.Data.ConsumerBatchSize; n > 0 {
		return n
	}
	return k.def.DefaultConsumerBatchSize
}

func (k *Kit) purgeIdempotencyKeys(ctx context.Context) {
	for {
		n, err := idempotency.DeleteExpired(ctx, k.db, time.Now())
		switch {
		case err != nil && ctx.Err() == nil:
			k.log.Warn("purge idempotency keys", slog.Any("error", err))
		case n > 0:
			k.log.Debug("purged expired idempotency keys", slog.Int64("keys", n))
		}
		if !sleep(ctx, IdempotencyPurgeInterval) {
			return
		}
	}
}

// warmJWKS fetches the signing keys until it succeeds once, so /readyz turns
// green without waiting for the first request; afterwards the verifier
// keeps its cached keys (and serves) even while auth-tokens is down.
func (k *Kit) warmJWKS(ctx context.Context) {
	delay := 200 * time.Millisecond
	for {
		err := k.jwks.Refresh(ctx)
		if err == nil || ctx.Err() != nil {
			return
		}
		k.log.Debug("jwks not loaded yet", slog.String("error", err.Error()))
		if !sleep(ctx, delay) {
			return
		}
		delay = min(delay*2, 5*time.Second)
	}
}

// jwksReady is the readiness check of a service verifying tokens by JWKS.
func (k *Kit) jwksReady(ctx context.Context) error {
	if k.jwks == nil || len(k.jwks.KeyIDs()) > 0 {
		return nil
	}
	if err := k.jwks.Refresh(ctx); err != nil {
		return fmt.Errorf("jwks not loaded: %w", err)
	}
	return nil
}

func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
