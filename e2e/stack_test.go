package e2e

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx" for the PostgreSQL wait strategy
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/testcontainers/testcontainers-go"
	tcnetwork "github.com/testcontainers/testcontainers-go/network"
	"github.com/testcontainers/testcontainers-go/wait"
)

// Defaults mirror the top-level Makefile (REGISTRY, TAG) and the images it builds.
const (
	defaultRegistry        = "ghcr.io/acctsuite"
	defaultTag             = "dev"
	onlinePostgresImage    = "postgres:16-alpine"
	offlinePostgresImage   = "acct-postgres-offline:15"
	startupTimeout         = 2 * time.Minute
	stopTimeout            = 10 * time.Second
	e2eClientName          = "e2e-platform"
	postgresAlias          = "postgres"
	kafkaAlias             = "kafka"
	authTokensAlias        = "auth-tokens"
	transactionsAlias      = "transactions"
	customersAlias         = "customers-invoices"
	reportsAlias           = "reports"
	billsAlias             = "bills-tags"
	mileageAlias           = "mileage"
	webhooksAlias          = "webhooks"
	gatewayAlias           = "gateway"
	serviceHTTPPort        = "8080/tcp"
	brokerHealthPort       = "9093/tcp"
	postgresPort           = "5432/tcp"
	postgresUser           = "acct"
	postgresDB             = "acct"
	brokerAdvertisedAddr   = kafkaAlias + ":9092"
	authTokensInternalBase = "http://" + authTokensAlias + ":8080"
	transactionsBase       = "http://" + transactionsAlias + ":8080"
	customersBase          = "http://" + customersAlias + ":8080"
	reportsBase            = "http://" + reportsAlias + ":8080"
	billsBase              = "http://" + billsAlias + ":8080"
	mileageBase            = "http://" + mileageAlias + ":8080"
	webhooksBase           = "http://" + webhooksAlias + ":8080"
	// hostAlias is the name by which the webhooks container reaches the
	// machine running the tests (Docker's host-gateway), where a
	// scenario's webhook receiver listens.
	hostAlias = "host.docker.internal"
	// storageMount is where the services that store files (receipts,
	// exports) and the gateway, which serves their signed download URLs,
	// share one folder of the host; storagePublicBase is the gateway as
	// those URLs name it inside the stack's network (a scenario swaps it
	// for the gateway's mapped address).
	storageMount      = "/var/lib/acct/storage"
	storagePublicBase = "http://" + gatewayAlias + ":8080"
)

// settings is the suite's environment, read once.
type settings struct {
	Registry      string
	Tag           string
	PostgresImage string
	Offline       bool
	BaseURL       string
	ClientID      string
	ClientSecret  string
	KeepLogs      bool
	ReceiverHost  string
}

func loadSettings(getenv func(string) string) settings {
	s := settings{
		Registry:      getenv("E2E_REGISTRY"),
		Tag:           getenv("E2E_TAG"),
		PostgresImage: getenv("E2E_POSTGRES_IMAGE"),
		Offline:       getenv("E2E_OFFLINE") == "1" || strings.EqualFold(getenv("E2E_OFFLINE"), "true"),
		BaseURL:       strings.TrimRight(getenv("E2E_BASE_URL"), "/"),
		ClientID:      getenv("E2E_CLIENT_ID"),
		ClientSecret:  getenv("E2E_CLIENT_SECRET"),
		KeepLogs:      getenv("E2E_KEEP_LOGS") == "1",
		ReceiverHost:  getenv("E2E_RECEIVER_HOST"),
	}
	if s.Registry == "" {
		s.Registry = defaultRegistry
	}
	if s.Tag == "" {
		s.Tag = defaultTag
	}
	if s.PostgresImage == "" {
		s.PostgresImage = onlinePostgresImage
		if s.Offline {
			s.PostgresImage = offlinePostgresImage
		}
	}
	return s
}

// image is the reference `make images` gives service name.
func (s settings) image(name string) string {
	return fmt.Sprintf("%s/acct-%s:%s", strings.TrimRight(s.Registry, "/"), name, s.Tag)
}

// postgresWait waits until the server answers a query over TCP with the
// given password. A log line would not do: the official image prints its
// ready line twice (init server, then the real one), the offline image once,
// and after a restart the old lines are still in the log.
func postgresWait(password string) wait.Strategy {
	return wait.ForSQL(postgresPort, "pgx", func(host string, port network.Port) string {
		return fmt.Sprintf("postgres://%s:%s@%s/%s?sslmode=disable", postgresUser, password, net.JoinHostPort(host, port.Port()), postgresDB)
	}).WithStartupTimeout(startupTimeout).WithPollInterval(250 * time.Millisecond)
}

// Stack is what a scenario talks to: the gateway's base URL and platform
// credentials, plus the containers when the suite started them.
type Stack struct {
	BaseURL      string
	ClientID     string
	ClientSecret string
	// Services maps a service name (auth-tokens, ...) to its container; empty
	// when the scenarios run against an already deployed stack.
	Services map[string]*testcontainers.DockerContainer
	// DownloadBase is the base URL the stack's signed download URLs name
	// (storagePublicBase); a scenario reaches them at BaseURL instead.
	// Empty for a deployed stack, whose URLs are public already.
	DownloadBase string
	// ReceiverHost is the host name by which the stack's webhooks service
	// reaches a receiver listening on this machine (on every interface).
	// Empty for a deployed stack, which cannot reach this machine.
	ReceiverHost string
}

// DownloadURL is u (a signed download URL the stack handed out) as the
// test reaches it.
func (s *Stack) DownloadURL(u string) string {
	if s.DownloadBase != "" && strings.HasPrefix(u, s.DownloadBase+"/") {
		return s.BaseURL + strings.TrimPrefix(u, s.DownloadBase)
	}
	return u
}

// Remote reports whether the stack was deployed by someone else (E2E_BASE_URL).
func (s *Stack) Remote() bool { return len(s.Services) == 0 }

func randomHex(t testing.TB, n int) string {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// StartStack returns a running stack: the one at E2E_BASE_URL, or a fresh one
// of containers that are all removed (with their network) when t ends, also
// when it fails.
func StartStack(t *testing.T) *Stack {
	t.Helper()
	cfg := loadSettings(os.Getenv)
	if cfg.BaseURL != "" {
		if cfg.ClientID == "" || cfg.ClientSecret == "" {
			t.Fatalf("E2E_BASE_URL=%s needs E2E_CLIENT_ID and E2E_CLIENT_SECRET (a platform client of that deployment)", cfg.BaseURL)
		}
		t.Logf("e2e: using the deployed stack at %s (no containers started)", cfg.BaseURL)
		return &Stack{BaseURL: cfg.BaseURL, ClientID: cfg.ClientID, ClientSecret: cfg.ClientSecret, ReceiverHost: cfg.ReceiverHost}
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t.Logf("e2e: images %s, %s, %s, %s, %s, %s, %s, %s, %s, postgres %s", cfg.image("broker"), cfg.image("auth-tokens"), cfg.image("transactions"),
		cfg.image("customers-invoices"), cfg.image("reports"), cfg.image("bills-tags"), cfg.image("mileage"), cfg.image("webhooks"),
		cfg.image("gateway"), cfg.PostgresImage)

	nw, err := tcnetwork.New(ctx)
	testcontainers.CleanupNetwork(t, nw)
	if err != nil {
		t.Fatalf("e2e: create network: %v", err)
	}

	dbPassword := randomHex(t, 16)
	stack := &Stack{
		ClientID:     "e2e-" + randomHex(t, 4),
		ClientSecret: randomHex(t, 24),
		Services:     map[string]*testcontainers.DockerContainer{},
	}

	// PostgreSQL and the broker do not depend on each other: start them together.
	var wg sync.WaitGroup
	var pgErr, brokerErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, pgErr = startContainer(ctx, t, cfg, postgresAlias, cfg.PostgresImage, nw,
			testcontainers.WithEnv(map[string]string{
				"POSTGRES_USER":     postgresUser,
				"POSTGRES_PASSWORD": dbPassword,
				"POSTGRES_DB":       postgresDB,
			}),
			testcontainers.WithExposedPorts(postgresPort),
			testcontainers.WithWaitStrategy(postgresWait(dbPassword)),
		)
	}()
	go func() {
		defer wg.Done()
		_, brokerErr = startContainer(ctx, t, cfg, kafkaAlias, cfg.image("broker"), nw,
			testcontainers.WithEnv(map[string]string{
				"BROKER_LISTEN":      "0.0.0.0:9092",
				"BROKER_ADVERTISE":   brokerAdvertisedAddr,
				"BROKER_TOPICS":      "acct.business.v1",
				"BROKER_HEALTH_ADDR": ":9093",
			}),
			testcontainers.WithExposedPorts(brokerHealthPort),
			testcontainers.WithWaitStrategy(wait.ForHTTP("/healthz").WithPort(brokerHealthPort).WithStartupTimeout(startupTimeout)),
		)
	}()
	wg.Wait()
	if pgErr != nil {
		t.Fatalf("e2e: postgres: %v", pgErr)
	}
	if brokerErr != nil {
		t.Fatalf("e2e: broker: %v", brokerErr)
	}

	signingKey := make([]byte, 32)
	if _, err := rand.Read(signingKey); err != nil {
		t.Fatal(err)
	}
	auth, err := startContainer(ctx, t, cfg, authTokensAlias, cfg.image("auth-tokens"), nw,
		testcontainers.WithEnv(map[string]string{
			"DATABASE_URL":               fmt.Sprintf("postgres://%s:%s@%s:5432/%s?sslmode=disable", postgresUser, dbPassword, postgresAlias, postgresDB),
			"KAFKA_BROKERS":              brokerAdvertisedAddr,
			"SIGNING_KEY_ENCRYPTION_KEY": base64.StdEncoding.EncodeToString(signingKey),
			"BOOTSTRAP_CLIENT_ID":        stack.ClientID,
			"BOOTSTRAP_CLIENT_SECRET":    stack.ClientSecret,
			"BOOTSTRAP_CLIENT_NAME":      e2eClientName,
			"SHUTDOWN_TIMEOUT":           "5s",
		}),
		testcontainers.WithExposedPorts(serviceHTTPPort),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/readyz").WithPort(serviceHTTPPort).WithStartupTimeout(startupTimeout)),
	)
	if err != nil {
		t.Fatalf("e2e: auth-tokens: %v", err)
	}
	stack.Services[authTokensAlias] = auth

	// Object storage: a host folder shared by the services that store
	// files and the gateway that serves them (the images run as a non-root
	// user, hence the open mode).
	storageDir := t.TempDir()
	if err := os.Chmod(storageDir, 0o777); err != nil {
		t.Fatal(err)
	}
	storageKey := make([]byte, 32)
	if _, err := rand.Read(storageKey); err != nil {
		t.Fatal(err)
	}
	storageEnv := map[string]string{
		"STORAGE_BACKEND":         "fs",
		"STORAGE_DIR":             storageMount,
		"STORAGE_SIGNING_KEY":     base64.StdEncoding.EncodeToString(storageKey),
		"STORAGE_PUBLIC_BASE_URL": storagePublicBase,
	}
	mountStorage := testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
		hc.Binds = append(hc.Binds, storageDir+":"+storageMount)
	})
	stack.DownloadBase = storagePublicBase

	webhooksKey := make([]byte, 32)
	if _, err := rand.Read(webhooksKey); err != nil {
		t.Fatal(err)
	}

	// The domain services: the same environment but for the cursor secret
	// (reports pages nothing) and the storage (transactions' receipts,
	// reports' exports, bills-tags' imported receipts).
	for _, svc := range []struct {
		alias, image string
		cursors      bool
		storage      bool
	}{
		{transactionsAlias, "transactions", true, true},
		{customersAlias, "customers-invoices", true, false},
		{reportsAlias, "reports", false, true},
		{billsAlias, "bills-tags", true, true},
		{mileageAlias, "mileage", true, false},
		{webhooksAlias, "webhooks", true, false},
	} {
		env := map[string]string{
			"DATABASE_URL":     fmt.Sprintf("postgres://%s:%s@%s:5432/%s?sslmode=disable", postgresUser, dbPassword, postgresAlias, postgresDB),
			"KAFKA_BROKERS":    brokerAdvertisedAddr,
			"JWKS_URL":         authTokensInternalBase + "/.well-known/jwks.json",
			"SHUTDOWN_TIMEOUT": "5s",
		}
		if svc.cursors {
			env["PAGE_CURSOR_SECRET"] = randomHex(t, 16)
		}
		if svc.alias == billsAlias {
			// Generic tagging (POST /tags) reaches the owners of bank
			// transactions, invoices and invoice payments.
			env["TRANSACTIONS_URL"] = transactionsBase
			env["CUSTOMERS_INVOICES_URL"] = customersBase
		}
		opts := []testcontainers.ContainerCustomizer{
			testcontainers.WithExposedPorts(serviceHTTPPort),
			testcontainers.WithWaitStrategy(wait.ForHTTP("/readyz").WithPort(serviceHTTPPort).WithStartupTimeout(startupTimeout)),
		}
		if svc.alias == webhooksAlias {
			// The scenario's receiver listens on this machine, over http
			// and at a private address: allowed here, never by the chart.
			env["WEBHOOKS_SECRET_KEY"] = base64.StdEncoding.EncodeToString(webhooksKey)
			env["WEBHOOKS_ALLOW_PRIVATE"] = "true"
			env["WEBHOOKS_ALLOW_HTTP"] = "true"
			opts = append(opts, testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
				hc.ExtraHosts = append(hc.ExtraHosts, hostAlias+":host-gateway")
			}))
		}
		if svc.storage {
			for k, v := range storageEnv {
				env[k] = v
			}
			opts = append(opts, mountStorage)
		}
		c, err := startContainer(ctx, t, cfg, svc.alias, cfg.image(svc.image), nw, append(opts, testcontainers.WithEnv(env))...)
		if err != nil {
			t.Fatalf("e2e: %s: %v", svc.image, err)
		}
		stack.Services[svc.alias] = c
	}

	gw, err := startContainer(ctx, t, cfg, gatewayAlias, cfg.image("gateway"), nw,
		testcontainers.WithEnv(map[string]string{
			"UPSTREAM_AUTH_TOKENS_URL":        authTokensInternalBase,
			"UPSTREAM_TRANSACTIONS_URL":       transactionsBase,
			"UPSTREAM_CUSTOMERS_INVOICES_URL": customersBase,
			"UPSTREAM_REPORTS_URL":            reportsBase,
			"UPSTREAM_BILLS_TAGS_URL":         billsBase,
			"UPSTREAM_MILEAGE_URL":            mileageBase,
			"UPSTREAM_WEBHOOKS_URL":           webhooksBase,
			"JWKS_URL":                        authTokensInternalBase + "/.well-known/jwks.json",
			"SHUTDOWN_TIMEOUT":                "5s",
			"STORAGE_DIR":                     storageMount,
			"STORAGE_SIGNING_KEY":             storageEnv["STORAGE_SIGNING_KEY"],
		}),
		mountStorage,
		testcontainers.WithExposedPorts(serviceHTTPPort),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/readyz").WithPort(serviceHTTPPort).WithStartupTimeout(startupTimeout)),
	)
	if err != nil {
		t.Fatalf("e2e: gateway: %v", err)
	}
	endpoint, err := gw.PortEndpoint(ctx, serviceHTTPPort, "http")
	if err != nil {
		t.Fatalf("e2e: gateway endpoint: %v", err)
	}
	stack.BaseURL = endpoint
	stack.ReceiverHost = hostAlias
	t.Logf("e2e: gateway at %s", endpoint)
	return stack
}

// startContainer runs image on nw under alias. The container is removed when
// t ends; before that, its log is printed if t failed (or E2E_KEEP_LOGS=1).
func startContainer(ctx context.Context, t *testing.T, cfg settings, alias, image string, nw *testcontainers.DockerNetwork, opts ...testcontainers.ContainerCustomizer) (*testcontainers.DockerContainer, error) {
	opts = append(opts, tcnetwork.WithNetwork([]string{alias}, nw))
	ctr, err := testcontainers.Run(ctx, image, opts...)
	// Registered before the error check: a container that failed its wait
	// strategy still exists and must go, and its log explains the failure.
	testcontainers.CleanupContainer(t, ctr)
	if ctr != nil {
		t.Cleanup(func() {
			if t.Failed() || err != nil || cfg.KeepLogs {
				dumpLogs(t, alias, ctr)
			}
		})
	}
	if err != nil {
		return nil, fmt.Errorf("run %s (service images come from `make images`, the offline PostgreSQL from `make pg-image`): %w", image, err)
	}
	return ctr, nil
}

// dumpLogs prints the last lines of a container's log into the test output.
func dumpLogs(t *testing.T, alias string, ctr *testcontainers.DockerContainer) {
	const maxLines = 80
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		t.Logf("e2e: %s log unavailable: %v", alias, err)
		return
	}
	defer rc.Close()
	var lines []string
	sc := bufio.NewScanner(rc)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > maxLines {
			lines = lines[1:]
		}
	}
	t.Logf("e2e: ---- last %d log lines of %s ----\n%s", len(lines), alias, strings.Join(lines, "\n"))
}
