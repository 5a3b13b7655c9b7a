package storagetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"github.com/acctsuite/acct/pkg/storage"
)

// VersityGWVersion is the versitygw release mk/storage.mk builds from the
// Go module proxy into .cache/bin.
const VersityGWVersion = "v1.8.0"

// S3Server is a running S3-compatible server (versitygw over a temporary
// directory) with its root credentials.
type S3Server struct {
	Endpoint  string // http://127.0.0.1:port
	Region    string
	AccessKey string
	SecretKey string
	buckets   atomic.Int64
}

// FindVersityGW returns the versitygw binary: $VERSITYGW_BIN, else
// .cache/bin/versitygw under the repository root (the folder holding
// go.work, searched upwards from the working directory), else versitygw on
// PATH.
func FindVersityGW() (string, error) {
	if bin := os.Getenv("VERSITYGW_BIN"); bin != "" {
		if _, err := os.Stat(bin); err != nil {
			return "", fmt.Errorf("VERSITYGW_BIN=%s: %w", bin, err)
		}
		return bin, nil
	}
	if dir, err := os.Getwd(); err == nil {
		for {
			if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
				bin := filepath.Join(dir, ".cache", "bin", "versitygw")
				if _, err := os.Stat(bin); err == nil {
					return bin, nil
				}
				break
			}
			parent := filepath.Dir(dir)
			if parent == dir {
				break
			}
			dir = parent
		}
	}
	return exec.LookPath("versitygw")
}

// StartVersityGW starts versitygw on a free loopback port, serving a
// temporary directory, and stops it when the test ends. Without the binary
// the test fails when $CI is set (a CI run must never skip the S3 suite
// silently) and is skipped otherwise, saying how to build it.
func StartVersityGW(t testing.TB) *S3Server {
	t.Helper()
	bin, err := FindVersityGW()
	if err != nil {
		msg := fmt.Sprintf("versitygw not found (%v): build it with `make versitygw` (go install github.com/versity/versitygw/cmd/versitygw@%s into .cache/bin) or set VERSITYGW_BIN", err, VersityGWVersion)
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	port, err := freePort()
	if err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	srv := &S3Server{
		Endpoint:  fmt.Sprintf("http://127.0.0.1:%d", port),
		Region:    "us-east-1",
		AccessKey: "test" + randomHex(8),
		SecretKey: randomHex(20),
	}
	root := t.TempDir()
	logPath := filepath.Join(t.TempDir(), "versitygw.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatalf("versitygw: %v", err)
	}
	defer logFile.Close()

	cmd := exec.Command(bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "--region", srv.Region, "--quiet", "posix", root)
	// Root credentials through the environment, not the command line.
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+srv.AccessKey, "ROOT_SECRET_ACCESS_KEY="+srv.SecretKey)
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = serverProcAttr()
	if err := cmd.Start(); err != nil {
		t.Fatalf("versitygw: start %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	if err := waitHTTP(srv.Endpoint, 30*time.Second, exited); err != nil {
		out, _ := os.ReadFile(logPath)
		t.Fatalf("versitygw at %s did not come up: %v\n%s", srv.Endpoint, err, out)
	}
	return srv
}

// waitHTTP polls until the server answers any HTTP response (an anonymous
// request is refused, which is enough to know it serves).
func waitHTTP(endpoint string, within time.Duration, exited <-chan error) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(within)
	for {
		resp, err := client.Get(endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return nil
		}
		select {
		case werr := <-exited:
			return fmt.Errorf("process exited: %v", werr)
		default:
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Credentials are the server's root credentials.
func (s *S3Server) Credentials() aws.CredentialsProvider {
	return credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, "")
}

// NewBucket creates a fresh bucket and returns its name.
func (s *S3Server) NewBucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("test-%d-%s", s.buckets.Add(1), randomHex(4))
	st := s.Store(t, name, s.Credentials())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := st.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(name)}); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}

// Store is an S3Store on bucket of this server with the given credentials
// (path-style addressing, as S3-compatible servers on an IP need).
func (s *S3Server) Store(t testing.TB, bucket string, creds aws.CredentialsProvider) *storage.S3Store {
	t.Helper()
	st, err := storage.NewS3(context.Background(), storage.S3Options{
		Bucket:         bucket,
		Region:         s.Region,
		Endpoint:       s.Endpoint,
		ForcePathStyle: true,
		Credentials:    creds,
	})
	if err != nil {
		t.Fatalf("S3 store: %v", err)
	}
	return st
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("find a free port: %w", err)
	}
	defer ln.Close()
	addr, ok := ln.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("find a free port: not a TCP address")
	}
	return addr.Port, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return strings.ToLower(hex.EncodeToString(b))
}
