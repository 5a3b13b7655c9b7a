// Package service wires the webhooks service onto the service kit: the
// domain topics consumed into webhook events (the business projection
// first, for the platforms), the endpoints API, the dispatcher woken by
// database notifications, the SSRF-guarded outbound client and the hourly
// purge. The kit does the rest (see pkg/servicekit).
package service

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/uptrace/bun/driver/pgdriver"

	"github.com/acctsuite/acct/pkg/clock"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/outbox"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/secretbox"
	"github.com/acctsuite/acct/pkg/servicekit"
	"github.com/acctsuite/acct/services/webhooks"
	"github.com/acctsuite/acct/services/webhooks/internal/adapters/egress"
	httpadapter "github.com/acctsuite/acct/services/webhooks/internal/adapters/http"
	kafkaadapter "github.com/acctsuite/acct/services/webhooks/internal/adapters/kafka"
	"github.com/acctsuite/acct/services/webhooks/internal/adapters/postgres"
	"github.com/acctsuite/acct/services/webhooks/internal/app"
	"github.com/acctsuite/acct/services/webhooks/internal/config"
)

// PurgeInterval is how often what is past its retention is deleted.
const PurgeInterval = time.Hour

// Service holds what Setup built (tests reach the use cases through it).
type Service struct {
	Webhooks *app.Webhooks
	Store    *postgres.Store
	cfg      config.Config
	opts     Options
}

// Options adjust the service for tests.
type Options struct {
	// Dispatch adjusts the dispatcher (zero: the configuration's).
	Dispatch app.DispatchOptions
	// Clock replaces the system clock (the retry schedule's tests).
	Clock clock.Clock
}

// New describes the service to the kit.
func New(cfg config.Config) (*Service, servicekit.Definition) { return NewWith(cfg, Options{}) }

// NewWith is New with test options.
func NewWith(cfg config.Config, o Options) (*Service, servicekit.Definition) {
	s := &Service{cfg: cfg, opts: o}
	return s, servicekit.Definition{
		Name:       config.ServiceName,
		Base:       &cfg.Base,
		Data:       &cfg.Data,
		Auth:       &cfg.Auth,
		Migrations: []pgdb.MigrationSet{postgres.Migrations},
		Businesses: true,
		// Up to 1,000 fetched events of a partition in one transaction: the
		// fan-out keeps up with busy topics, with one commit per batch (a
		// batch holds only what was fetched already: a quiet topic's
		// events are not held back for it).
		DefaultConsumerBatchSize: 1000,
		OpenAPI:                  webhooks.OpenAPI,
		Setup:                    s.setup,
	}
}

func (s *Service) setup(_ context.Context, k *servicekit.Kit) error {
	box, err := secretbox.New(s.cfg.Webhooks.Key())
	if err != nil {
		return err
	}
	client := egress.New(egress.Options{AllowPrivate: s.cfg.Webhooks.AllowPrivate, AllowHTTP: s.cfg.Webhooks.AllowHTTP,
		Timeout: s.cfg.Webhooks.Timeout})
	s.Store = postgres.New(k.DB(), box)
	// An unordered endpoint's deliveries are spread over as many lanes as
	// may be sent to it at once.
	if s.opts.Dispatch.PerEndpoint > 0 {
		s.Store.SpreadUnordered(s.opts.Dispatch.PerEndpoint)
	} else {
		s.Store.SpreadUnordered(s.cfg.Webhooks.PerEndpoint)
	}
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhooks_attempts_total",
		Help: "Delivery attempts by outcome: delivered, retry (not 2xx or no answer, retried later), failed (the last attempt)."}, []string{"outcome"})
	took := prometheus.NewHistogram(prometheus.HistogramOpts{Name: "webhooks_attempt_seconds",
		Help: "How long an attempt took (sign, connect, send, answer).", Buckets: prometheus.ExponentialBuckets(0.005, 2, 13)})
	k.Metrics().MustRegister(attempts, took, prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "webhooks_due_lag_seconds",
		Help: "How long the oldest due delivery has been waiting to be sent (alert when it grows: dispatchers down or saturated)."},
		func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			lag, err := s.Store.DueLag(ctx, time.Now())
			if err != nil {
				return -1
			}
			return lag.Seconds()
		}))
	s.Webhooks = app.New(app.Options{UnitOfWork: outbox.UnitOfWork{DB: k.DB()}, Store: s.Store, Guard: egressGuard{client}, Sender: egressSender{client},
		Logger: k.Logger(), Clock: s.opts.Clock, Schedule: s.cfg.Webhooks.Schedule(),
		Observe: func(outcome string, d time.Duration) {
			attempts.WithLabelValues(outcome).Inc()
			took.Observe(d.Seconds())
		}})

	k.Consume(events.TopicBusiness, kafkaadapter.BusinessHandler(s.Webhooks))
	for _, t := range kafkaadapter.Topics {
		k.ConsumeBatch(t, kafkaadapter.BatchHandler(s.Webhooks))
	}
	httpadapter.Register(k.App(), httpadapter.Options{Webhooks: s.Webhooks, Guards: k.Guards()})

	if s.cfg.Webhooks.Dispatch {
		d := s.opts.Dispatch
		if d.Concurrency == 0 {
			d.Concurrency = s.cfg.Webhooks.Concurrency
		}
		if d.PerEndpoint == 0 {
			d.PerEndpoint = s.cfg.Webhooks.PerEndpoint
		}
		if d.Lease == 0 {
			d.Lease = s.cfg.Webhooks.Lease
		}
		if d.Timeout == 0 {
			d.Timeout = s.cfg.Webhooks.Timeout
		}
		k.Go(func(ctx context.Context) {
			wake, stop := listen(ctx, k)
			defer stop()
			d.Wake = wake
			s.Webhooks.Dispatch(ctx, d)
		})
	}
	k.Go(func(ctx context.Context) { s.purge(ctx, k.Logger()) })
	return nil
}

// listen turns the database's notifications of enqueued deliveries into
// wake-ups (none without LISTEN: the dispatcher polls).
func listen(ctx context.Context, k *servicekit.Kit) (<-chan struct{}, func()) {
	if _, ok := k.SessionDB().Driver().(pgdriver.Driver); !ok {
		return nil, func() {}
	}
	ln := pgdriver.NewListener(k.SessionDB()) // LISTEN needs a session: the direct connection behind a pooler
	if err := ln.Listen(ctx, postgres.NotifyChannel); err != nil {
		_ = ln.Close()
		k.Logger().Warn("webhooks: no LISTEN, polling only", "error", err)
		return nil, func() {}
	}
	out := make(chan struct{}, 1)
	in := ln.Channel(pgdriver.WithChannelSize(1024), pgdriver.WithChannelOverflowHandler(func(pgdriver.Notification) {}))
	go func() {
		for range in {
			select {
			case out <- struct{}{}:
			default:
			}
		}
	}()
	return out, func() { _ = ln.Close() }
}

func (s *Service) purge(ctx context.Context, log *slog.Logger) {
	t := time.NewTicker(PurgeInterval)
	defer t.Stop()
	for {
		if n, err := s.Webhooks.Purge(ctx); err != nil && ctx.Err() == nil {
			log.Error("webhooks: purge", "error", err)
		} else if n > 0 {
			log.Info("webhooks: purged finished deliveries", "deliveries", n)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// egressGuard is the egress client as the app's URL guard: its
// refusals are app.ErrURLRefused.
type egressGuard struct{ c *egress.Client }

func (g egressGuard) CheckURL(ctx context.Context, raw string) error {
	return refused(g.c.CheckURL(ctx, raw))
}

func refused(err error) error {
	if err != nil && (errors.Is(err, egress.ErrInvalidURL) || errors.Is(err, egress.ErrRefused) || errors.Is(err, egress.ErrUnresolvable)) {
		return app.RefusedURL(err)
	}
	return err
}

// egressSender is the egress client as the app's sender.
type egressSender struct{ c *egress.Client }

func (s egressSender) Post(ctx context.Context, url string, headers map[string]string, body []byte) (app.SendResult, error) {
	res, err := s.c.Post(ctx, url, headers, body)
	if err != nil {
		return app.SendResult{}, refused(err)
	}
	return app.SendResult{StatusCode: res.StatusCode, Body: res.Body, Latency: res.Latency}, nil
}
