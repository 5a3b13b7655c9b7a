package service

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/httpx"
)

// TestRefusedBodiesGetReadableErrors sends bodies the gateway or the service
// behind it refuses while the client is still writing them, 50 times each:
// over the service's own (smaller) limit, over the gateway's limit with and
// without a Content-Length, and refused before forwarding (no token, wrong
// scope). Every attempt must read the error object, never a connection
// reset, and the service must store nothing.
func TestRefusedBodiesGetReadableErrors(t *testing.T) {
	// A real service: pkg/httpx (fasthttp) with a 64 KiB limit, refusing
	// larger bodies from the Content-Length before its handler runs.
	var stored atomic.Int64
	svc := httpx.New(httpx.Options{Service: "upstream", BodyLimit: 64 << 10})
	svc.Post("/v1/businesses", func(c *fiber.Ctx) error {
		stored.Add(1)
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": fiber.Map{"id": uuid.NewString()}})
	})
	httpx.Finish(svc)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- httpx.ServeListener(ctx, svc, ln, time.Second) }()
	t.Cleanup(func() { cancel(); <-served })

	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, "http://"+ln.Addr().String())) // gateway limit: 1 MiB
	platform, business := is.platform(t, "c1"), is.business(t, "c1", uuid.New())

	cases := []struct {
		name    string
		token   string
		size    int
		chunked bool
		status  int
		typ     apperr.Type
	}{
		{"over the service's limit", platform, 512 << 10, false, 413, apperr.PayloadTooLarge},
		{"over the gateway's limit", platform, 4 << 20, false, 413, apperr.PayloadTooLarge},
		{"over the gateway's limit, chunked", platform, 4 << 20, true, 413, apperr.PayloadTooLarge},
		{"no token", "", 4 << 20, false, 401, apperr.Unauthenticated},
		{"business token on a platform route", business, 150 << 10, false, 403, apperr.Forbidden},
	}
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := append(append([]byte(`{"pad":"`), bytes.Repeat([]byte("x"), tc.size)...), `"}`...)
			for i := range 50 {
				var r io.Reader = bytes.NewReader(body)
				if tc.chunked {
					r = io.MultiReader(r) // no length known: sent chunked
				}
				req, _ := http.NewRequest(http.MethodPost, gw+"/v1/businesses", r)
				req.Header.Set("Content-Type", "application/json")
				if tc.token != "" {
					req.Header.Set("Authorization", "Bearer "+tc.token)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatalf("attempt %d: %v", i, err)
				}
				got, err := io.ReadAll(resp.Body)
				resp.Body.Close()
				var obj apperr.Body
				if err != nil || resp.StatusCode != tc.status || json.Unmarshal(got, &obj) != nil || obj.Type != string(tc.typ) || obj.Description == "" {
					t.Fatalf("attempt %d: %d %s (%v), want %d %s", i, resp.StatusCode, got, err, tc.status, tc.typ)
				}
			}
		})
	}
	if n := stored.Load(); n != 0 {
		t.Fatalf("the service stored %d bodies", n)
	}
	// Both still serve a small request afterwards.
	status, _, got := call(t, http.MethodPost, gw+"/v1/businesses", platform, bytes.NewReader([]byte(`{}`)), map[string]string{"Content-Type": "application/json"})
	if status != http.StatusCreated {
		t.Fatalf("small body: %d %s", status, got)
	}
}

// TestUpstreamResettingEarlyKeepsClientInSync: an upstream that answers 413
// from the headers and resets the connection without reading the body (no
// lingering close). fasthttp's client still reads that answer; the gateway
// must then finish the client's unread body itself, or the rest of it would
// be parsed as the client's next request on the same connection.
func TestUpstreamResettingEarlyKeepsClientInSync(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				req, err := http.ReadRequest(bufio.NewReader(conn))
				if err == nil {
					const obj = `{"type":"PayloadTooLarge","description":"request body too large"}`
					status := "413 Request Entity Too Large"
					if req.Method != http.MethodPost {
						status = "404 Not Found"
					}
					_, _ = io.WriteString(conn, "HTTP/1.1 "+status+"\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: "+
						strconv.Itoa(len(obj))+"\r\n\r\n"+obj)
				}
				_ = conn.(*net.TCPConn).SetLinger(0) // close with a reset
				_ = conn.Close()
			}()
		}
	}()
	is := newIssuer(t)
	_, gw := startGateway(t, testConfig(is.jwks.URL, "http://"+ln.Addr().String()))
	platform := is.platform(t, "c1")
	body := bytes.Repeat([]byte("x"), 512<<10) // under the gateway's 1 MiB
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	seen := map[int]int{}
	for i := range 50 {
		req, _ := http.NewRequest(http.MethodPost, gw+"/v1/businesses", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+platform)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		got, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		var obj apperr.Body
		// 413 relayed when the answer was read before the reset, 503 when
		// the reset destroyed it; anything else is a desynchronised
		// connection (the body's tail read as a request).
		if err != nil || json.Unmarshal(got, &obj) != nil || obj.Description == "" ||
			!(resp.StatusCode == 413 && obj.Type == string(apperr.PayloadTooLarge) || resp.StatusCode == 503 && obj.Type == string(apperr.Unavailable)) {
			t.Fatalf("attempt %d: %d %s (%v)", i, resp.StatusCode, got, err)
		}
		seen[resp.StatusCode]++
	}
	t.Logf("answers: %v", seen)
}
