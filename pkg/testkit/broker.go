package testkit

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
)

// DefaultPartitions is the partition count of the topics StartBroker creates.
const DefaultPartitions = 3

// DLQSuffix is appended to a topic name to form its dead-letter topic.
const DLQSuffix = ".dlq"

// BrokerConfig describes a standalone kfake broker (tools/cmd/broker and
// Broker use it).
type BrokerConfig struct {
	// Listen is the host:port to bind, e.g. "0.0.0.0:9092" or "127.0.0.1:0".
	Listen string
	// Advertise is the host:port announced to clients in metadata; empty
	// means the bound address. Needed when clients reach the broker by
	// another name (containers).
	Advertise string
	// DataDir keeps topics, messages and committed offsets across restarts;
	// empty keeps everything in memory.
	DataDir string
	// Topics are created (with their .dlq twins) when missing.
	Topics []string
	// Partitions per created topic; DefaultPartitions when ≤ 0.
	Partitions int32
	// TLS, when set, is the listener's TLS configuration (clients must
	// connect with TLS).
	TLS *tls.Config
	// SASL users (superusers); when any is given, clients must
	// authenticate with one of them.
	SASL []SASLUser
}

// SASLUser is a broker user: Mechanism is PLAIN, SCRAM-SHA-256 or
// SCRAM-SHA-512. A user with ACLs is held to them (the broker then
// enforces ACLs for every user but superusers); one without is a
// superuser.
type SASLUser struct {
	Mechanism, User, Password string
	ACLs                      []kfake.ACL
}

// StartBroker starts a single-node kfake cluster as described by cfg.
func StartBroker(cfg BrokerConfig) (*kfake.Cluster, error) {
	host, portStr, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("broker listen address %q: %w", cfg.Listen, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("broker listen port %q: %w", portStr, err)
	}
	if cfg.Advertise != "" {
		if _, _, err := net.SplitHostPort(cfg.Advertise); err != nil {
			return nil, fmt.Errorf("broker advertised address %q: %w", cfg.Advertise, err)
		}
	}
	opts := []kfake.Opt{
		kfake.NumBrokers(1),
		kfake.Ports(port),
		// kfake always binds 127.0.0.1: we bind the requested host instead
		// and optionally report another address in metadata.
		kfake.ListenFn(func(network, address string) (net.Listener, error) {
			_, p, err := net.SplitHostPort(address)
			if err != nil {
				return nil, err
			}
			ln, err := net.Listen(network, net.JoinHostPort(host, p))
			if err != nil {
				return nil, err
			}
			if cfg.Advertise == "" {
				if host == "0.0.0.0" || host == "" || host == "::" {
					return nil, errors.New("broker bound to a wildcard address needs an advertised address")
				}
				return ln, nil
			}
			return advertisedListener{Listener: ln, addr: advertisedAddr{network: network, hostport: cfg.Advertise}}, nil
		}),
	}
	if cfg.TLS != nil {
		opts = append(opts, kfake.TLS(cfg.TLS))
	}
	if len(cfg.SASL) > 0 {
		opts = append(opts, kfake.EnableSASL())
		for _, u := range cfg.SASL {
			if u.ACLs != nil {
				opts = append(opts, kfake.EnableACLs(), kfake.User(u.Mechanism, u.User, u.Password, u.ACLs...))
				continue
			}
			opts = append(opts, kfake.Superuser(u.Mechanism, u.User, u.Password))
		}
	}
	if cfg.DataDir != "" {
		if err := os.MkdirAll(cfg.DataDir, 0o755); err != nil {
			return nil, fmt.Errorf("broker data dir: %w", err)
		}
		opts = append(opts, kfake.DataDir(cfg.DataDir))
	}
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		return nil, fmt.Errorf("start broker on %s: %w", cfg.Listen, err)
	}
	if err := EnsureTopics(c, cfg.Partitions, cfg.Topics...); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// EnsureTopics creates each topic and its .dlq twin unless it exists.
// (Seed topics are ignored by kfake when it reloads a DataDir, so topics are
// always created this way.)
func EnsureTopics(c *kfake.Cluster, partitions int32, topics ...string) error {
	if partitions <= 0 {
		partitions = DefaultPartitions
	}
	for _, t := range topics {
		for _, name := range []string{t, t + DLQSuffix} {
			if err := c.CreateTopic(name, partitions, nil); err != nil && !errors.Is(err, kerr.TopicAlreadyExists) {
				return fmt.Errorf("create topic %s: %w", name, err)
			}
		}
	}
	return nil
}

type advertisedAddr struct{ network, hostport string }

func (a advertisedAddr) Network() string { return a.network }
func (a advertisedAddr) String() string  { return a.hostport }

// advertisedListener reports the advertised address: kfake announces its
// listener's Addr() to clients.
type advertisedListener struct {
	net.Listener
	addr net.Addr
}

func (l advertisedListener) Addr() net.Addr { return l.addr }

// BrokerHandle is a test broker on a fixed loopback port whose data survives
// Stop and Restart.
type BrokerHandle struct {
	t      testing.TB
	cfg    BrokerConfig
	mu     sync.Mutex
	c      *kfake.Cluster
	addr   string
	closed bool
}

// Broker starts an in-process broker for the test with the given topics (and
// their .dlq twins), stopped at cleanup.
func Broker(t testing.TB, topics ...string) *BrokerHandle {
	t.Helper()
	return SecureBroker(t, nil, nil, topics...)
}

// SecureBroker is Broker listening with TLS (when tlsCfg is not nil) and
// requiring SASL authentication as one of users (when any).
func SecureBroker(t testing.TB, tlsCfg *tls.Config, users []SASLUser, topics ...string) *BrokerHandle {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatalf("testkit: broker port: %v", err)
	}
	b := &BrokerHandle{
		t: t,
		cfg: BrokerConfig{
			Listen:  net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
			DataDir: t.TempDir(),
			Topics:  topics,
			TLS:     tlsCfg,
			SASL:    users,
		},
	}
	b.c, err = StartBroker(b.cfg)
	if err != nil {
		t.Fatalf("testkit: %v", err)
	}
	b.addr = b.cfg.Listen
	t.Cleanup(func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.closed = true
		if b.c != nil {
			b.c.Close()
			b.c = nil
		}
	})
	return b
}

// Addrs are the bootstrap addresses; they do not change across restarts.
func (b *BrokerHandle) Addrs() []string { return []string{b.addr} }

// Cluster is the running kfake cluster, nil while stopped.
func (b *BrokerHandle) Cluster() *kfake.Cluster {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.c
}

// Stop shuts the broker down, persisting its state; clients see connection
// errors until Restart. Stopping a stopped broker does nothing.
func (b *BrokerHandle) Stop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
}

// Restart starts the broker again on the same port from its data dir
// (stopping it first if it runs).
func (b *BrokerHandle) Restart() {
	b.t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		b.t.Fatalf("testkit: broker restarted after test cleanup")
	}
	if b.c != nil {
		b.c.Close()
		b.c = nil
	}
	c, err := StartBroker(b.cfg)
	if err != nil {
		b.t.Fatalf("testkit: restart broker: %v", err)
	}
	b.c = c
}
