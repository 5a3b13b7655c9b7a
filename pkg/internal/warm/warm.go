package warm

import (
	_ "github.com/caarlos0/env/v11"
	_ "github.com/getkin/kin-openapi/openapi3filter"
	_ "github.com/gofiber/contrib/otelfiber/v2"
	_ "github.com/gofiber/fiber/v2"
	_ "github.com/golang-jwt/jwt/v5"
	_ "github.com/google/uuid"
	_ "github.com/prometheus/client_golang/prometheus/promhttp"
	_ "github.com/segmentio/kafka-go"
	_ "github.com/swaggest/swgui/v5emb"
	_ "github.com/twmb/franz-go/pkg/kfake"
	_ "github.com/uptrace/bun"
	_ "github.com/uptrace/bun/dialect/pgdialect"
	_ "github.com/uptrace/bun/driver/pgdriver"
	_ "github.com/uptrace/bun/migrate"
	_ "go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	_ "go.opentelemetry.io/otel/sdk/trace"
	_ "golang.org/x/crypto/argon2"
	_ "golang.org/x/time/rate"
)
