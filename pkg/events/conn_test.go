package events_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/acctsuite/acct/pkg/config"
	"github.com/acctsuite/acct/pkg/events"
	"github.com/acctsuite/acct/pkg/testkit"
	"github.com/segmentio/kafka-go"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func TestConnect(t *testing.T) {
	certs := testkit.NewTLS(t)
	notPEM := filepath.Join(t.TempDir(), "ca.txt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		k                config.Kafka
		wantTLS          bool
		wantSASL         string // mechanism name
		wantErr          string
		wantClientCert   bool
		wantCustomRootCA bool
	}{
		{"plaintext", config.Kafka{Brokers: []string{"b:9092"}}, false, "", "", false, false},
		{"tls with system roots", config.Kafka{Brokers: []string{"b:9093"}, TLS: true}, true, "", "", false, false},
		{"tls with a CA and a client certificate", config.Kafka{Brokers: []string{"b:9093"}, TLSCAFile: certs.CAFile,
			TLSCertFile: certs.CertFile, TLSKeyFile: certs.KeyFile}, true, "", "", true, true},
		{"plain", config.Kafka{Brokers: []string{"b:9093"}, TLS: true, SASLMechanism: config.SASLPlain, SASLUsername: "u", SASLPassword: "p"}, true, "PLAIN", "", false, false},
		{"scram-256", config.Kafka{Brokers: []string{"b:9093"}, SASLMechanism: config.SASLScramSHA256, SASLUsername: "u", SASLPassword: "p"}, false, "SCRAM-SHA-256", "", false, false},
		{"scram-512", config.Kafka{Brokers: []string{"b:9093"}, SASLMechanism: config.SASLScramSHA512, SASLUsername: "u", SASLPassword: "p"}, false, "SCRAM-SHA-512", "", false, false},
		{"msk iam", config.Kafka{Brokers: []string{"b:9098"}, TLS: true, SASLMechanism: config.SASLAWSMSKIAM, SASLAWSRegion: "eu-west-1"}, true, "AWS_MSK_IAM", "", false, false},
		{"missing CA file", config.Kafka{Brokers: []string{"b:9093"}, TLSCAFile: "/nonexistent/ca.pem"}, false, "", "KAFKA_TLS_CA_FILE", false, false},
		{"CA file without a certificate", config.Kafka{Brokers: []string{"b:9093"}, TLSCAFile: notPEM}, false, "", "no PEM certificate", false, false},
		{"key that does not match", config.Kafka{Brokers: []string{"b:9093"}, TLSCertFile: certs.CAFile, TLSKeyFile: certs.KeyFile}, false, "", "KAFKA_TLS_CERT_FILE", false, false},
		{"invalid block", config.Kafka{Brokers: []string{"b:9093"}, SASLMechanism: "NOPE"}, false, "", "KAFKA_SASL_MECHANISM", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := events.Connect(context.Background(), tt.k)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Connect = %v, want an error naming %s", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (c.TLS != nil) != tt.wantTLS {
				t.Fatalf("TLS = %v, want %v", c.TLS != nil, tt.wantTLS)
			}
			if c.TLS != nil && ((len(c.TLS.Certificates) == 1) != tt.wantClientCert || (c.TLS.RootCAs != nil) != tt.wantCustomRootCA) {
				t.Fatalf("TLS client certificates %d, custom roots %v", len(c.TLS.Certificates), c.TLS.RootCAs != nil)
			}
			got := ""
			if c.SASL != nil {
				got = c.SASL.Name()
			}
			if got != tt.wantSASL {
				t.Fatalf("SASL mechanism %q, want %q", got, tt.wantSASL)
			}
			d := c.Dialer(0)
			if d.TLS != c.TLS || d.SASLMechanism != c.SASL {
				t.Fatal("the dialer does not carry the connection's TLS and SASL")
			}
			tr := c.Transport()
			if tr.TLS != c.TLS || tr.SASL != c.SASL {
				t.Fatal("the transport does not carry the connection's TLS and SASL")
			}
		})
	}
}

// TestRestrictedUser: a user whose ACLs allow producing to one topic and
// nothing else (what the chart's Strimzi KafkaUsers are) connects over
// SASL, leaves topic creation to whoever manages topics without failing,
// and can write its topic but not another.
func TestRestrictedUser(t *testing.T) {
	acl := func(topic string, op kmsg.ACLOperation) kfake.ACL {
		return kfake.ACL{Resource: kmsg.ACLResourceTypeTopic, Name: topic, Pattern: kmsg.ACLResourcePatternTypeLiteral, Operation: op, Allow: true}
	}
	broker := testkit.SecureBroker(t, nil, []testkit.SASLUser{
		{Mechanism: "SCRAM-SHA-256", User: "admin", Password: "admin-pass"},
		{Mechanism: "SCRAM-SHA-256", User: "producer", Password: "producer-pass", ACLs: []kfake.ACL{
			acl(events.TopicMileage, kmsg.ACLOperationWrite), acl(events.TopicMileage, kmsg.ACLOperationDescribe)}},
	}, events.TopicMileage, events.TopicBusiness)
	ctx := context.Background()
	conn, err := events.Connect(ctx, config.Kafka{Brokers: broker.Addrs(), SASLMechanism: config.SASLScramSHA256, SASLUsername: "producer", SASLPassword: "producer-pass"})
	if err != nil {
		t.Fatal(err)
	}
	if err := events.Reachable(ctx, conn); err != nil {
		t.Fatalf("Reachable: %v", err)
	}
	if err := events.EnsureTopics(ctx, conn, 1, events.TopicMileage, "acct.unmanaged.v1"); err != nil {
		t.Fatalf("EnsureTopics without the right to create: %v, want topics left to their manager", err)
	}
	write := func(topic string) error {
		w := &kafka.Writer{Addr: kafka.TCP(conn.Brokers...), Transport: conn.Transport(), Topic: topic, MaxAttempts: 1,
			RequiredAcks: kafka.RequireAll, BatchTimeout: time.Millisecond}
		defer w.Close()
		return w.WriteMessages(ctx, kafka.Message{Key: []byte("k"), Value: []byte("v")})
	}
	if err := write(events.TopicMileage); err != nil {
		t.Fatalf("write to the allowed topic: %v", err)
	}
	if err := write(events.TopicBusiness); err == nil {
		t.Fatal("wrote to a topic the user's ACLs do not allow")
	}
}

func TestCheckUse(t *testing.T) {
	tests := []struct {
		name               string
		service            string
		produces, consumes []string
		wantErr            string
	}{
		{"auth-tokens", "auth-tokens", []string{events.TopicBusiness}, nil, ""},
		{"webhooks consumes everything", "webhooks", nil, []string{events.TopicBusiness, events.TopicLedger, events.TopicMileage}, ""},
		{"a topic outside the table", "mileage", []string{"acct.widgets.v1"}, []string{events.TopicBusiness}, ""},
		{"a service outside the table", "widgets", []string{events.TopicLedger}, []string{events.TopicBills}, ""},
		{"only auth-tokens writes businesses", "transactions", []string{events.TopicLedger, events.TopicBusiness}, nil, "whose producer is auth-tokens"},
		{"an unlisted consumer", "mileage", nil, []string{events.TopicLedger}, "mileage consumes acct.ledger.v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := events.CheckUse(tt.service, tt.produces, tt.consumes)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("CheckUse = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
