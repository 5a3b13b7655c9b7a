package service

import (
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/acctsuite/acct/pkg/testkit"
)

// BenchmarkProxyWhoami measures GET /whoami served directly by an in-process
// fake upstream and through the gateway in front of it; compare the two
// sub-benchmarks' ns/op for the gateway's overhead.
func BenchmarkProxyWhoami(b *testing.B) {
	upstream := fiber.New(fiber.Config{DisableStartupMessage: true})
	upstream.Get("/whoami", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"data": fiber.Map{"type": "whoami", "clientId": c.Get("X-Acct-Client-Id")}})
	})
	direct := testkit.Serve(b, upstream)
	is := newIssuer(b)
	cfg := testConfig(is.jwks.URL, direct)
	_, gw := startGateway(b, cfg)
	token := is.platform(b, "bench-client")

	for _, target := range []struct{ name, base string }{{"direct", direct}, {"gateway", gw}} {
		b.Run(target.name, func(b *testing.B) {
			client := &fasthttp.Client{MaxConnsPerHost: 256}
			url := target.base + "/whoami"
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				req, resp := fasthttp.AcquireRequest(), fasthttp.AcquireResponse()
				defer fasthttp.ReleaseRequest(req)
				defer fasthttp.ReleaseResponse(resp)
				req.SetRequestURI(url)
				req.Header.Set("Authorization", "Bearer "+token)
				for pb.Next() {
					if err := client.Do(req, resp); err != nil {
						b.Fatal(err)
					}
					if resp.StatusCode() != fasthttp.StatusOK {
						b.Fatalf("status %d: %s", resp.StatusCode(), resp.Body())
					}
				}
			})
		})
	}
}
