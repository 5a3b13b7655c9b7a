# Object storage tests: the S3 conformance run of pkg/storage needs versitygw, a real
# S3-compatible server (signature and expiry checks on pre-signed URLs).
#
# versitygw is built once from the Go module proxy into .cache/bin (about 6 minutes cold on 2
# cores, module downloads included; then reused). The tests find it there (or via VERSITYGW_BIN,
# or on PATH); without it they fail when CI is set and are skipped locally.

VERSITYGW_VERSION ?= v1.8.0
TOOLS_BIN ?= $(CURDIR)/.cache/bin
VERSITYGW_BIN ?= $(TOOLS_BIN)/versitygw

.PHONY: versitygw test-storage

$(VERSITYGW_BIN):
	@mkdir -p $(dir $@)
	@echo "building versitygw $(VERSITYGW_VERSION) from the Go module proxy into $(dir $@) (first time only)"
	GOBIN=$(dir $@) GOWORK=off GOFLAGS= $(GO) install github.com/versity/versitygw/cmd/versitygw@$(VERSITYGW_VERSION)

versitygw: $(VERSITYGW_BIN) ## build the pinned versitygw (S3-compatible test server) into .cache/bin

test-storage: $(VERSITYGW_BIN) ## object storage conformance suite against both backends (filesystem and S3 via versitygw)
	VERSITYGW_BIN=$(VERSITYGW_BIN) $(GO) test -race -count=1 ./pkg/storage/...
