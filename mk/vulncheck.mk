# Supply chain: govulncheck over every module of the workspace, against an offline
# vulnerability database (part of `make test`, through test-go).
#
# Both come from the Go module proxy only (vuln.go.dev is not reachable here):
#   - govulncheck $(GOVULNCHECK_VERSION) is built once into .cache/bin (about 1.5 minutes cold);
#   - the database is built once per $(VULNDB_VERSION) into .cache/vulndb/<version> (seconds) by
#     tools/cmd/vulndb from the OSV entries (data/osv) of the golang.org/x/vulndb module.
# GOVULNDB=https://vuln.go.dev (or any v1 database URL) scans against that instead.
#
# The scan runs in govulncheck's default symbol-level mode and fails (exit 3) on any called
# vulnerable function, except a finding listed in mk/vulncheck-accept.txt for its exact module
# version (tools/cmd/vulncheck applies it; see that file).

GOVULNCHECK_VERSION ?= v1.9.0
VULNDB_VERSION ?= v0.0.0-20261105234957-e22db6528018
TOOLS_BIN ?= $(CURDIR)/.cache/bin
GOVULNCHECK_BIN ?= $(TOOLS_BIN)/govulncheck
VULNDB_DIR ?= $(CURDIR)/.cache/vulndb/$(VULNDB_VERSION)
GOVULNDB ?= file://$(VULNDB_DIR)
VULNCHECK_ACCEPT ?= mk/vulncheck-accept.txt
# Every module of go.work. govulncheck runs in tools/ (it needs a go.mod there) and reaches the
# other modules through the workspace, so the whole graph is analysed once.
VULNCHECK_PATTERNS ?= ./... ../pkg/... $(foreach s,$(SERVICES),../services/$(s)/...) ../e2e/...

.PHONY: govulncheck vulndb vulncheck

$(GOVULNCHECK_BIN):
	@mkdir -p $(dir $@)
	@echo "building govulncheck $(GOVULNCHECK_VERSION) from the Go module proxy into $(dir $@) (first time only)"
	GOBIN=$(dir $@) GOWORK=off GOFLAGS= $(GO) install golang.org/x/vuln/cmd/govulncheck@$(GOVULNCHECK_VERSION)

# Built into a temporary folder and renamed, so an interrupted build is never taken for a database.
$(VULNDB_DIR)/index/db.json:
	@echo "building the vulnerability database from golang.org/x/vulndb@$(VULNDB_VERSION) (first time only)"
	@set -euo pipefail; \
	mkdir -p $(dir $(VULNDB_DIR)); \
	src=$$(cd $(dir $(VULNDB_DIR)) && GOWORK=off GOFLAGS= $(GO) mod download -json golang.org/x/vulndb@$(VULNDB_VERSION) | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$$/\1/p'); \
	test -d "$$src/data/osv" || { echo "error: golang.org/x/vulndb@$(VULNDB_VERSION) has no data/osv ($$src)" >&2; exit 1; }; \
	rm -rf $(VULNDB_DIR).tmp; \
	$(GO) run ./tools/cmd/vulndb -osv "$$src/data/osv" -version $(VULNDB_VERSION) -out $(VULNDB_DIR).tmp; \
	rm -rf $(VULNDB_DIR); mv $(VULNDB_DIR).tmp $(VULNDB_DIR)

govulncheck: $(GOVULNCHECK_BIN) ## build the pinned govulncheck into .cache/bin

vulndb: $(VULNDB_DIR)/index/db.json ## build the offline vulnerability database into .cache/vulndb/<version>

vulncheck: $(GOVULNCHECK_BIN) $(if $(filter file://$(VULNDB_DIR),$(GOVULNDB)),$(VULNDB_DIR)/index/db.json) ## govulncheck every module (fails on a called vulnerable function); GOVULNDB=https://vuln.go.dev to use the online database
	@echo "vulncheck: $(GOVULNDB)"
	@time $(GO) run ./tools/cmd/vulncheck -govulncheck $(GOVULNCHECK_BIN) -db $(GOVULNDB) -accept $(VULNCHECK_ACCEPT) \
		-C tools -json $(CURDIR)/.cache/vulncheck.json $(VULNCHECK_PATTERNS)
