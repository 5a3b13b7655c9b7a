// Command broker runs the embedded Kafka-protocol broker (kfake) as a
// standalone process: the acct-broker image used by the end-to-end suite and
// any local stack that wants a broker without Apache Kafka. Production uses a
// real Kafka cluster; services cannot tell the difference.
//
// Configuration (environment, each overridable by the flag of the same
// meaning):
//
//	BROKER_LISTEN       -listen       address to bind (default 0.0.0.0:9092)
//	BROKER_ADVERTISE    -advertise    host:port announced to clients (default: the
//	                                  listen address with 127.0.0.1 for a wildcard host)
//	BROKER_DATA_DIR     -data-dir     keep topics, messages and offsets across restarts
//	BROKER_TOPICS       -topics       comma-separated topics to create (with .dlq twins)
//	BROKER_PARTITIONS   -partitions   partitions per created topic (default 3)
//	BROKER_HEALTH_ADDR  -health-addr  HTTP address of GET /healthz (default :9093)
//	LOG_LEVEL                         debug, info, warn, error
//
// SIGTERM or SIGINT stops the health endpoint and closes the broker, which
// persists its state when a data directory is set.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/telemetry"
	"github.com/acctsuite/acct/pkg/testkit"
)

// brokerConfig is the broker's environment.
type brokerConfig struct {
	Listen     string   `env:"BROKER_LISTEN" envDefault:"0.0.0.0:9092"`
	Advertise  string   `env:"BROKER_ADVERTISE"`
	DataDir    string   `env:"BROKER_DATA_DIR"`
	Topics     []string `env:"BROKER_TOPICS" envSeparator:","`
	Partitions int      `env:"BROKER_PARTITIONS" envDefault:"3"`
	HealthAddr string   `env:"BROKER_HEALTH_ADDR" envDefault:":9093"`
	config.Log
}

// Validate checks the addresses and counts (config.Load calls it for the
// environment, loadConfig again after the flags).
func (c *brokerConfig) Validate() error {
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("BROKER_LISTEN %q: %w", c.Listen, err)
	}
	if _, _, err := net.SplitHostPort(c.advertised()); err != nil {
		return fmt.Errorf("BROKER_ADVERTISE %q: %w", c.Advertise, err)
	}
	if _, _, err := net.SplitHostPort(c.HealthAddr); err != nil {
		return fmt.Errorf("BROKER_HEALTH_ADDR %q: %w", c.HealthAddr, err)
	}
	if c.Partitions <= 0 || c.Partitions > 1000 {
		return fmt.Errorf("BROKER_PARTITIONS must be in 1..1000, got %d", c.Partitions)
	}
	topics := c.Topics[:0]
	for _, t := range c.Topics {
		if t = strings.TrimSpace(t); t != "" {
			topics = append(topics, t)
		}
	}
	c.Topics = topics
	return c.Log.Validate()
}

// advertised is the address announced to clients. A wildcard cannot be
// dialled, so it defaults to loopback, which is right for a broker on the same
// host; containers set BROKER_ADVERTISE to their network alias.
func (c *brokerConfig) advertised() string {
	if c.Advertise != "" {
		return c.Advertise
	}
	host, port, err := net.SplitHostPort(c.Listen)
	if err != nil {
		return ""
	}
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port)
}

// loadConfig reads the environment, then lets flags override it.
func loadConfig(args []string) (brokerConfig, error) {
	var cfg brokerConfig
	if err := config.Load(&cfg); err != nil {
		return cfg, err
	}
	fs := flag.NewFlagSet("broker", flag.ContinueOnError)
	fs.StringVar(&cfg.Listen, "listen", cfg.Listen, "address to bind")
	fs.StringVar(&cfg.Advertise, "advertise", cfg.Advertise, "host:port announced to clients")
	fs.StringVar(&cfg.DataDir, "data-dir", cfg.DataDir, "directory that keeps the broker's data across restarts")
	topics := fs.String("topics", strings.Join(cfg.Topics, ","), "comma-separated topics to create (with .dlq twins)")
	fs.IntVar(&cfg.Partitions, "partitions", cfg.Partitions, "partitions per created topic")
	fs.StringVar(&cfg.HealthAddr, "health-addr", cfg.HealthAddr, "HTTP address of GET /healthz")
	if err := fs.Parse(args); err != nil {
		return cfg, err
	}
	cfg.Topics = strings.Split(*topics, ",")
	if err := cfg.Validate(); err != nil {
		return cfg, err
	}
	cfg.Advertise = cfg.advertised()
	return cfg, nil
}

// healthHandler answers 200 while the broker's listener accepts connections,
// so a container is healthy only when clients can really connect.
func healthHandler(listen string) http.Handler {
	_, port, _ := net.SplitHostPort(listen)
	target := net.JoinHostPort("127.0.0.1", port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			http.NotFound(w, r)
			return
		}
		conn, err := net.DialTimeout("tcp", target, time.Second)
		w.Header().Set("Content-Type", "application/json")
		if err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, `{"status":"unavailable"}`)
			return
		}
		conn.Close()
		fmt.Fprintf(w, `{"status":"ok"}`)
	})
}

func run(ctx context.Context, cfg brokerConfig, logger *slog.Logger) error {
	cluster, err := testkit.StartBroker(testkit.BrokerConfig{
		Listen:     cfg.Listen,
		Advertise:  cfg.Advertise,
		DataDir:    cfg.DataDir,
		Topics:     cfg.Topics,
		Partitions: int32(cfg.Partitions),
	})
	if err != nil {
		return err
	}
	defer cluster.Close()

	ln, err := net.Listen("tcp", cfg.HealthAddr)
	if err != nil {
		return fmt.Errorf("health listener: %w", err)
	}
	srv := &http.Server{Handler: healthHandler(cfg.Listen), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	logger.Info("broker started", "listen", cfg.Listen, "advertise", cfg.Advertise,
		"health", ln.Addr().String(), "data_dir", cfg.DataDir, "topics", cfg.Topics)

	select {
	case <-ctx.Done():
	case err := <-served:
		return fmt.Errorf("health server: %w", err)
	}
	logger.Info("broker stopping")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Warn("health server shutdown", "err", err)
	}
	return nil
}

func main() {
	cfg, err := loadConfig(os.Args[1:])
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(0)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "broker: %v\n", err)
		os.Exit(2)
	}
	logger := telemetry.Logger("broker", cfg.Level)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	err = run(ctx, cfg, logger)
	if err != nil {
		logger.Error("broker failed", "err", err)
	} else {
		logger.Info("broker stopped")
	}
	_ = telemetry.FlushLogs()
	if err != nil {
		os.Exit(1)
	}
}
