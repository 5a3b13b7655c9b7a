# Contract fuzzing (tools/contractfuzz): generated valid, boundary and invalid
# requests for every operation of the gateway's merged OpenAPI document,
# through the whole stack. `make test` runs it with 100,000 requests (the
# test's default, via `go test ./tools/...`); this target is the soak size, and `make soak`
# runs it after the chaos soak.
CONTRACT_FUZZ_SOAK_REQUESTS ?= 500000
CONTRACT_FUZZ_TIMEOUT ?= 90m

.PHONY: contract-fuzz
contract-fuzz: ## contract fuzzing soak: CONTRACT_FUZZ_SOAK_REQUESTS (500,000; `make soak` runs it after the chaos soak) requests, CONTRACT_FUZZ_SEED=<n> to replay
	CONTRACT_FUZZ_REQUESTS=$(CONTRACT_FUZZ_SOAK_REQUESTS) $(GO) test -count=1 -v -timeout $(CONTRACT_FUZZ_TIMEOUT) -run TestContractFuzz ./tools/contractfuzz
