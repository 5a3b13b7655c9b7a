package servicekit

import (
	"errors"
	"fmt"
	"time"

	pkgconfig "github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/consumer"
	"github.com/acctsuite/acct/pkg/pgdb"
	"github.com/acctsuite/acct/pkg/telemetry"
)

// Base is the configuration block every service embeds: its listener, its
// logs and traces, and the admin listener.
type Base struct {
	Addr string `env:"HTTP_ADDR" envDefault:":8080"`
	// BodyLimit 0 means the service's default (Definition.DefaultBodyLimit).
	BodyLimit       int           `env:"BODY_LIMIT_BYTES"`
	ShutdownTimeout time.Duration `env:"SHUTDOWN_TIMEOUT" envDefault:"20s"`
	// AdminAddr, when set, serves /metrics there instead of on the public
	// listener (Definition.DefaultAdminAddr when unset).
	AdminAddr string `env:"ADMIN_ADDR"`

	Log       pkgconfig.Log
	Telemetry telemetry.Config
}

// Validate rejects values that would make the server unusable.
func (b Base) Validate() error {
	var errs []error
	if b.Addr == "" {
		errs = append(errs, errors.New("HTTP_ADDR must not be empty"))
	}
	if b.BodyLimit < 0 {
		errs = append(errs, fmt.Errorf("BODY_LIMIT_BYTES must be positive, got %d", b.BodyLimit))
	}
	if b.ShutdownTimeout < 0 {
		errs = append(errs, fmt.Errorf("SHUTDOWN_TIMEOUT must not be negative, got %s", b.ShutdownTimeout))
	}
	return errors.Join(errs...)
}

// Data is the block of a service that owns a database schema and takes part
// in the event flow (every service but the gateway).
type Data struct {
	DB    pgdb.Config
	Kafka pkgconfig.Kafka
	// TopicPartitions is the partition count of topics the service creates.
	TopicPartitions int `env:"KAFKA_TOPIC_PARTITIONS" envDefault:"3"`
	// PageCursorSecret keys the HMAC of pagination cursors; replicas must
	// share it. Empty means a random key per process (cursors then break
	// across replicas and restarts; the kit logs a warning).
	PageCursorSecret string `env:"PAGE_CURSOR_SECRET"`
	// BusinessCacheTTL is how long the business directory keeps a business
	// it read (tenancy checks and business settings without a query); 0
	// reads the table on every request. A business.updated may take this
	// long to reach another replica's answers.
	BusinessCacheTTL time.Duration `env:"BUSINESS_CACHE_TTL" envDefault:"5s"`
	// ConsumerBatchSize is how many already-fetched messages of a partition
	// the consumer applies in one transaction; 0 means the service's
	// default (Definition.DefaultConsumerBatchSize), 1 one transaction per
	// message.
	ConsumerBatchSize int `env:"CONSUMER_BATCH_SIZE"`
	// IdempotencyInProgressTimeout is after how long without a sign of
	// life the reservation of an Idempotency-Key may be taken over by a
	// retry (its process was killed mid-request); until then a retry gets
	// 409 IdempotencyKeyInProgress. A running request, however long, shows
	// it is alive every third of it; 0 means
	// idempotency.DefaultInProgressTimeout.
	IdempotencyInProgressTimeout time.Duration `env:"IDEMPOTENCY_IN_PROGRESS_TIMEOUT" envDefault:"30s"`
}

// businessCacheSize bounds the businesses a directory keeps in memory.
const businessCacheSize = 50_000

// Validate checks the partition count, the consumer batch size and the
// cache TTL (DB and Kafka validate themselves).
func (d Data) Validate() error {
	var errs []error
	if d.TopicPartitions < 1 {
		errs = append(errs, fmt.Errorf("KAFKA_TOPIC_PARTITIONS must be at least 1, got %d", d.TopicPartitions))
	}
	if d.ConsumerBatchSize < 0 || d.ConsumerBatchSize > consumer.MaxBatchSize {
		errs = append(errs, fmt.Errorf("CONSUMER_BATCH_SIZE must be between 0 and %d, got %d", consumer.MaxBatchSize, d.ConsumerBatchSize))
	}
	if d.IdempotencyInProgressTimeout < 0 {
		errs = append(errs, fmt.Errorf("IDEMPOTENCY_IN_PROGRESS_TIMEOUT must not be negative, got %s", d.IdempotencyInProgressTimeout))
	}
	if d.BusinessCacheTTL < 0 || d.BusinessCacheTTL > time.Minute {
		errs = append(errs, fmt.Errorf("BUSINESS_CACHE_TTL must be between 0 and 1m, got %s", d.BusinessCacheTTL))
	}
	return errors.Join(errs...)
}

// Auth is the block of a service that verifies bearer tokens against
// auth-tokens' published keys (every domain service).
type Auth struct {
	JWKSURL     string `env:"JWKS_URL" envDefault:"http://127.0.0.1:8081/.well-known/jwks.json"`
	TokenIssuer string `env:"TOKEN_ISSUER" envDefault:"acct-auth-tokens"`
}

// Validate requires the JWKS URL.
func (a Auth) Validate() error {
	if a.JWKSURL == "" {
		return errors.New("JWKS_URL must not be empty")
	}
	return nil
}
