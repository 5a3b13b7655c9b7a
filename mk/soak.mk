# `make soak`: the mixed-load soak with chaos (tools/soak, tools/cmd/soak).
SOAK_DURATION ?= 30m

.PHONY: soak
soak: build ## mixed load through the gateway for SOAK_DURATION (30m) with kill -9 of every process, a 30 s broker outage, a PostgreSQL restart and a relay-leader kill (fails on any lost/duplicated write, unbalanced ledger, A/R, A/P or P&L mismatch, DLQ entry); then the contract-fuzz soak (CONTRACT_FUZZ_SOAK_REQUESTS)
	$(GO) build -o $(BIN)/ ./tools/cmd/soak
	SOAK_DURATION=$(SOAK_DURATION) $(BIN)/soak -root . -bin $(BIN)
	$(MAKE) --no-print-directory contract-fuzz
