package httpx

import (
	"encoding/json"
	"log/slog"
	"maps"
	"net"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"
	"github.com/valyala/fasthttp"
)

// TestAccessLogLineMatchesSlogRecord: the hand-built access line carries
// exactly the fields and values of the slog record it replaces, stays valid
// JSON for hostile paths, and respects the logger's level.
func TestAccessLogLineMatchesSlogRecord(t *testing.T) {
	build := func(level slog.Level, fast bool) (*fiber.App, *syncBuffer) {
		var out syncBuffer
		opts := Options{Service: "gw", Logger: slog.New(slog.NewJSONHandler(&out, &slog.HandlerOptions{Level: level})).With("service", "gw")}
		if fast {
			opts.AccessLog = &out
		}
		app := New(opts)
		app.Get("/p/:x", func(c *fiber.Ctx) error {
			c.Locals(LocalClientID, "client-7")
			return c.SendStatus(fiber.StatusAccepted)
		})
		Finish(app)
		return app, &out
	}
	paths := []string{
		"/p/plain",
		"/p/%22quoted%22",
		"/p/caf%C3%A9",
		`/p/a"b\c`,
		"/p/\xff\xfeinvalid",
		"/missing/route",
	}
	for _, p := range paths {
		t.Run(p, func(t *testing.T) {
			var recs []map[string]any
			for _, fast := range []bool{false, true} {
				app, out := build(slog.LevelInfo, fast)
				serveRaw(app, p, HeaderRequestID, "rid-1")
				var rec map[string]any
				if err := json.Unmarshal([]byte(strings.TrimSpace(out.String())), &rec); err != nil {
					t.Fatalf("fast=%v: not one JSON line: %v: %q", fast, err, out.String())
				}
				for _, k := range []string{"time", "duration_ms"} {
					if _, ok := rec[k]; !ok {
						t.Fatalf("fast=%v: no %s: %v", fast, k, rec)
					}
					delete(rec, k)
				}
				recs = append(recs, rec)
			}
			if !maps.EqualFunc(recs[0], recs[1], func(a, b any) bool { return a == b }) {
				t.Fatalf("slog record %v\nfast line   %v", recs[0], recs[1])
			}
		})
	}
	t.Run("level", func(t *testing.T) {
		app, out := build(slog.LevelWarn, true)
		serveRaw(app, "/p/x")
		if out.String() != "" {
			t.Fatalf("access line written at warn: %q", out.String())
		}
	})
}

// serveRaw runs one GET of the request target, byte for byte, through the
// app's handler (no HTTP client re-encodes it).
func serveRaw(app *fiber.App, target string, headers ...string) {
	var req fasthttp.Request
	req.Header.SetMethod(fiber.MethodGet)
	req.Header.SetRequestURI(target)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 5000}, nil)
	app.Handler()(&ctx)
}

func TestNewRequestID(t *testing.T) {
	seen := map[string]bool{}
	for range 10000 {
		id := newRequestID()
		u, err := uuid.Parse(id)
		if err != nil || u.Version() != 4 || u.Variant() != uuid.RFC4122 || len(id) != 36 {
			t.Fatalf("%q is not a version 4 UUID (%v)", id, err)
		}
		if seen[id] {
			t.Fatalf("duplicate id %s", id)
		}
		seen[id] = true
	}
}
