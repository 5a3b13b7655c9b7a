# The two commands a newcomer needs: `make run` (the whole suite locally) and
# `make test` (every test). Images, chart, kind and e2e targets live in mk/*.mk.
SHELL := /bin/bash
GO ?= go
REGISTRY ?= ghcr.io/acctsuite
TAG ?= dev
# Services behind the gateway plus the gateway; each builds from services/<s>/cmd/<s>.
SERVICES := auth-tokens transactions customers-invoices bills-tags reports mileage webhooks gateway
# Every image: the services and our Kafka-protocol broker (tools/cmd/broker).
IMAGES := $(SERVICES) broker
BIN := bin
TEST_TIMEOUT ?= 15m
# `make test` replays one contract-fuzz seed, so that CI is deterministic (its 100,000 requests passed
# with it); `make contract-fuzz` and `make soak` draw a new seed each run to explore. Empty: random.
CONTRACT_FUZZ_TEST_SEED ?= 1795641911216723046

.DEFAULT_GOAL := help

# Before the rules below: they use variables (HELM_BIN) defined there.
include $(wildcard mk/*.mk)

.PHONY: help
help: ## list targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

.PHONY: build
build: ## build every binary into bin/
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ $(foreach s,$(SERVICES),./services/$(s)/cmd/$(s)) ./tools/cmd/broker ./tools/cmd/devstack ./tools/cmd/bench ./tools/cmd/webhook-echo

.PHONY: run
run: build ## run the whole suite locally (PostgreSQL, broker, services, gateway on :8080)
	@$(BIN)/devstack -root .

.PHONY: test
test: test-go e2e-if-docker ## every test: unit, integration (PostgreSQL + broker), HTTP through the gateway, chart, e2e (when Docker answers)

.PHONY: test-go
test-go: $(HELM_BIN) $(VERSITYGW_BIN) vulndb vulncheck ## unit + integration + contract + chart tests and govulncheck (no Docker needed)
	$(GO) vet ./pkg/... $(foreach s,$(SERVICES),./services/$(s)/...) ./tools/...
	# Shared code and services under the race detector: outbox, consumer, caches and
	# the proxy are concurrent by design.
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./pkg/... $(foreach s,$(SERVICES),./services/$(s)/...)
	# The receipts' accuracy over the generated and the real receipts (Tesseract), without the race detector.
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run 'Accuracy' ./pkg/receipts/
	CONTRACT_FUZZ_SEED=$(CONTRACT_FUZZ_TEST_SEED) HELM_BIN=$(HELM_BIN) GOVULNCHECK_BIN=$(GOVULNCHECK_BIN) VULNDB_DIR=$(VULNDB_DIR) $(GO) test -count=1 -timeout $(TEST_TIMEOUT) ./tools/...

.PHONY: bench
bench: build ## every benchmark, each a ratio to a baseline of the same run (gateway vs nginx, transactions vs COPY/pgbench, reports and mileage vs raw SQL, receipts vs tesseract/pdftotext, bills vs pgbench, webhooks vs a plain HTTP client, the outbox relay vs the Kafka writer alone); writes the table docs/benchmarks.md (each bench-<part> updates its own rows)
	@$(BIN)/bench -root . -only all

.PHONY: bench-gateway
bench-gateway: build ## gateway overhead only: GET /whoami via gateway vs nginx and direct
	@$(BIN)/bench -root . -only gateway

.PHONY: bench-transactions
bench-transactions: build ## transactions service only: bulk import vs COPY, categorize vs pgbench, listing over 1M rows
	@$(BIN)/bench -root . -only transactions

.PHONY: bench-invoicing
bench-invoicing: build ## customers-invoices only: invoice listing (500k, 3 filters) vs SQL, payments vs pgbench
	@$(BIN)/bench -root . -only invoicing

.PHONY: bench-reports
bench-reports: build ## reports only: catch-up of 1M ledger lines vs COPY, P&L comparison and the statements over 1M lines vs raw SQL, A/R aging over 100k open invoices, CSV export of 1M rows vs COPY TO
	@$(BIN)/bench -root . -only reports

.PHONY: bench-mileage
bench-mileage: build ## mileage only: GET /mileage/summary over 200,000 trips with filters vs the raw GROUP BY over the trips
	@$(BIN)/bench -root . -only mileage

.PHONY: bench-bills
bench-bills: build ## bills only: receipts parsed per second (text PDF vs pdftotext, image OCR vs tesseract), bill creation at concurrency 32 vs pgbench
	@$(BIN)/bench -root . -only bills

.PHONY: bench-receipts
bench-receipts: build ## receipts only: real receipts' accuracy per field and folder, time per receipt vs a bare tesseract on the same file
	@$(BIN)/bench -root . -only receipts

.PHONY: bench-webhooks
bench-webhooks: build ## webhooks only: deliveries per second from a backlog vs a plain net/http client, event-to-delivery p99 at 200 events/s, a 10 s endpoint's effect on the others
	@$(BIN)/bench -root . -only webhooks

.PHONY: bench-outbox
bench-outbox: build ## the outbox relay only: a 500,000-event backlog queued with stale statistics, drained into the broker, vs the Kafka writer alone
	@$(BIN)/bench -root . -only outbox

.PHONY: fmt
fmt: ## gofmt every Go file
	gofmt -w pkg services tools e2e

.PHONY: clean
clean: ## remove build output (keeps .data; `rm -rf .data` resets the local stack)
	rm -rf $(BIN) dist
