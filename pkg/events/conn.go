package events

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"time"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/segmentio/kafka-go"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/aws_msk_iam_v2"
	"github.com/segmentio/kafka-go/sasl/plain"
	"github.com/segmentio/kafka-go/sasl/scram"

	"github.com/acctsuite/acct/pkg/config"
)

// Conn is how a service reaches Kafka: the brokers, and the TLS and SASL
// every connection uses, whatever makes it (producers, consumers, topic
// creation, the readiness check).
type Conn struct {
	Brokers []string
	TLS     *tls.Config    // nil: plaintext
	SASL    sasl.Mechanism // nil: no authentication
}

// Plain is a Conn to brokers without TLS or SASL (tests, local runs).
func Plain(brokers ...string) Conn { return Conn{Brokers: brokers} }

// Connect builds the Conn a Kafka configuration block describes: it reads
// the CA bundle and the client certificate, and sets up the SASL
// mechanism (for AWS_MSK_IAM, the pod's AWS credentials). Errors name the
// variable at fault.
func Connect(ctx context.Context, k config.Kafka) (Conn, error) {
	if err := k.Validate(); err != nil {
		return Conn{}, err
	}
	c := Conn{Brokers: k.Brokers}
	if k.TLSEnabled() {
		t := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: k.TLSServerName}
		if k.TLSCAFile != "" {
			pem, err := os.ReadFile(k.TLSCAFile)
			if err != nil {
				return Conn{}, fmt.Errorf("KAFKA_TLS_CA_FILE: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return Conn{}, fmt.Errorf("KAFKA_TLS_CA_FILE %s: no PEM certificate in it", k.TLSCAFile)
			}
			t.RootCAs = pool
		}
		if k.TLSCertFile != "" {
			cert, err := tls.LoadX509KeyPair(k.TLSCertFile, k.TLSKeyFile)
			if err != nil {
				return Conn{}, fmt.Errorf("KAFKA_TLS_CERT_FILE/KAFKA_TLS_KEY_FILE: %w", err)
			}
			t.Certificates = []tls.Certificate{cert}
		}
		c.TLS = t
	}
	switch k.SASLMechanism {
	case config.SASLPlain:
		c.SASL = plain.Mechanism{Username: k.SASLUsername, Password: k.SASLPassword}
	case config.SASLScramSHA256, config.SASLScramSHA512:
		algo := scram.SHA256
		if k.SASLMechanism == config.SASLScramSHA512 {
			algo = scram.SHA512
		}
		m, err := scram.Mechanism(algo, k.SASLUsername, k.SASLPassword)
		if err != nil {
			return Conn{}, fmt.Errorf("KAFKA_SASL_USERNAME/KAFKA_SASL_PASSWORD: %w", err)
		}
		c.SASL = m
	case config.SASLAWSMSKIAM:
		var opts []func(*awsconfig.LoadOptions) error
		if k.SASLAWSRegion != "" {
			opts = append(opts, awsconfig.WithRegion(k.SASLAWSRegion))
		}
		aws, err := awsconfig.LoadDefaultConfig(ctx, opts...)
		if err != nil {
			return Conn{}, fmt.Errorf("KAFKA_SASL_MECHANISM AWS_MSK_IAM: AWS configuration: %w", err)
		}
		if aws.Region == "" {
			return Conn{}, errors.New("KAFKA_SASL_MECHANISM AWS_MSK_IAM: no AWS region: set KAFKA_SASL_AWS_REGION (or AWS_REGION)")
		}
		c.SASL = aws_msk_iam_v2.NewMechanism(aws)
	}
	return c, nil
}

// Dialer is a dialer of c's brokers with c's TLS and SASL.
func (c Conn) Dialer(timeout time.Duration) *kafka.Dialer {
	return &kafka.Dialer{Timeout: timeout, DualStack: true, TLS: c.TLS, SASLMechanism: c.SASL}
}

// Transport is a transport (writers, clients) with c's TLS and SASL. Its
// connection pools (each with a metadata goroutine) live until
// CloseIdleConnections, which a Writer's Close does not call for a
// transport it was given: close writers with CloseWriter.
func (c Conn) Transport() *kafka.Transport {
	return &kafka.Transport{DialTimeout: dialTimeout, TLS: c.TLS, SASL: c.SASL}
}

// CloseWriter closes w, then the connections of the Transport it was given.
func CloseWriter(w *kafka.Writer) error {
	err := w.Close()
	if t, ok := w.Transport.(*kafka.Transport); ok {
		t.CloseIdleConnections()
	}
	return err
}
