# `make soak`: the mixed-load soak with chaos (tools/soak, tools/cmd/soak).
SOAK_DURATION ?= 30m
# The platforms' webhook receivers are stopped this long (a fault); the webhooks service keeps the
# product's retry schedule (5s, 5m, 30m...), so the final check waits up to SOAK_WEBHOOK_WAIT for
# the deliveries refused meanwhile (their retry 5 min 5 s after the first failure).
SOAK_RECEIVER_DOWNTIME ?= 5m
SOAK_WEBHOOK_WAIT ?= 8m

.PHONY: soak
soak: build ## mixed load through the gateway for SOAK_DURATION (30m) with kill -9 of every process, a 30 s broker outage, a PostgreSQL restart, a relay-leader kill and SOAK_RECEIVER_DOWNTIME (5m) of webhook receivers (fails on any lost/duplicated write, unbalanced ledger, A/R, A/P or P&L mismatch, DLQ entry, missing or unverified webhook); then the contract-fuzz soak (CONTRACT_FUZZ_SOAK_REQUESTS)
	$(GO) build -o $(BIN)/ ./tools/cmd/soak
	SOAK_DURATION=$(SOAK_DURATION) SOAK_RECEIVER_DOWNTIME=$(SOAK_RECEIVER_DOWNTIME) SOAK_WEBHOOK_WAIT=$(SOAK_WEBHOOK_WAIT) \
		$(BIN)/soak -root . -bin $(BIN)
	$(MAKE) --no-print-directory contract-fuzz
