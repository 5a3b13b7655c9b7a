# Helm chart: lint, render and the chart tests (tools/chartcheck).
#
# helm is built once from the Go module proxy into .cache/bin (about 2.5 minutes cold on 2 cores)
# and reused afterwards; nothing is downloaded from anywhere else.

HELM_VERSION ?= v3.22.0
TOOLS_BIN := $(CURDIR)/.cache/bin
HELM_BIN ?= $(TOOLS_BIN)/helm
CHART := charts/acct
CHART_VALUE_SETS := $(wildcard $(CHART)/ci/*.yaml)

.PHONY: helm chart-lint chart-template chart-test chart-package

$(HELM_BIN):
	@mkdir -p $(dir $@)
	@echo "building helm $(HELM_VERSION) from the Go module proxy into $(dir $@) (first time only)"
	GOBIN=$(dir $@) GOWORK=off GOFLAGS= $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

helm: $(HELM_BIN) ## build the pinned helm into .cache/bin

chart-lint: $(HELM_BIN) ## helm lint the chart for the default values and every ci/*.yaml value set
	$(HELM_BIN) lint $(CHART) --strict
	@set -e; for f in $(CHART_VALUE_SETS); do echo "== $$f"; $(HELM_BIN) lint $(CHART) --strict -f $$f; done

chart-template: $(HELM_BIN) ## render the chart with VALUES=<file> (default values when unset)
	$(HELM_BIN) template acct $(CHART) --namespace acct $(if $(VALUES),-f $(VALUES))

chart-test: $(HELM_BIN) ## chart tests: lint, render, strict decode, policy checks, skaffold/kind configs
	cd tools && HELM_BIN=$(HELM_BIN) $(GO) test -count=1 ./chartcheck/...

chart-package: $(HELM_BIN) ## package the chart into dist/charts
	@mkdir -p dist/charts
	$(HELM_BIN) package $(CHART) --destination dist/charts --app-version $(TAG)
