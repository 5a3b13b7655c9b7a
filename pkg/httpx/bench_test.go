package httpx

import (
	"io"
	"log/slog"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

func benchApp(b *testing.B, app *fiber.App) {
	app.Get("/v1/businesses/:businessId", func(c *fiber.Ctx) error {
		return c.SendString("ok")
	})
	h := app.Handler()
	var ctx fasthttp.RequestCtx
	ctx.Request.SetRequestURI("/v1/businesses/0f8fad5b-d9cb-469f-a165-70867728950e")
	ctx.Request.Header.SetMethod("GET")
	ctx.Request.Header.Set("Authorization", "Bearer x.y.z")
	ctx.Request.Header.Set("Traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		h(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatal(ctx.Response.StatusCode())
		}
		ctx.Response.Reset()
		ctx.ResetUserValues() // as the server does between requests
	}
}

// BenchmarkBareFiber is the baseline the middleware cost is measured against.
func BenchmarkBareFiber(b *testing.B) {
	benchApp(b, fiber.New(fiber.Config{DisableStartupMessage: true}))
}

func BenchmarkApp(b *testing.B) {
	benchApp(b, New(Options{Service: "bench", Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))}))
}
