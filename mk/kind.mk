# Local Kubernetes with kind + skaffold. These targets need Docker, kind, kubectl and skaffold on
# PATH (helm comes from .cache/bin, see mk/chart.mk) and network access to pull the kind node image
# and the operators' manifests: they cannot run on machines without a pullable node image (such as
# the CI machine of this repository), where the chart tests validate the files statically instead.

KIND ?= kind
KUBECTL ?= kubectl
SKAFFOLD ?= skaffold
KIND_CLUSTER ?= acct
KIND_CONTEXT := kind-$(KIND_CLUSTER)
KIND_CONFIG := deploy/kind/cluster.yaml
INGRESS_NGINX_MANIFEST ?= https://raw.githubusercontent.com/kubernetes/ingress-nginx/controller-v1.12.1/deploy/static/provider/kind/deploy.yaml
CNPG_MANIFEST ?= https://raw.githubusercontent.com/cloudnative-pg/cloudnative-pg/release-1.25/releases/cnpg-1.25.1.yaml
STRIMZI_MANIFEST ?= https://strimzi.io/install/latest?namespace=acct
E2E_BASE_URL ?= http://localhost

# need-tool name: fail with a clear message when a CLI is missing.
define need-tool
	@command -v $(1) >/dev/null 2>&1 || { echo "error: '$(1)' not found on PATH; install it to use kind targets (see charts/acct/README.md, Run in kind)" >&2; exit 1; }
endef

.PHONY: kind-up kind-deploy kind-e2e kind-down

kind-up: ## create the kind cluster and install ingress-nginx, CloudNativePG and Strimzi
	$(call need-tool,docker)
	$(call need-tool,$(KIND))
	$(call need-tool,$(KUBECTL))
	@$(KIND) get clusters 2>/dev/null | grep -qx '$(KIND_CLUSTER)' || $(KIND) create cluster --name $(KIND_CLUSTER) --config $(KIND_CONFIG) --wait 120s
	$(KUBECTL) --context $(KIND_CONTEXT) apply -f $(INGRESS_NGINX_MANIFEST)
	$(KUBECTL) --context $(KIND_CONTEXT) apply --server-side -f $(CNPG_MANIFEST)
	$(KUBECTL) --context $(KIND_CONTEXT) create namespace acct --dry-run=client -o yaml | $(KUBECTL) --context $(KIND_CONTEXT) apply -f -
	$(KUBECTL) --context $(KIND_CONTEXT) apply -n acct -f '$(STRIMZI_MANIFEST)'
	$(KUBECTL) --context $(KIND_CONTEXT) -n ingress-nginx wait --for=condition=Available deploy/ingress-nginx-controller --timeout=300s
	$(KUBECTL) --context $(KIND_CONTEXT) -n cnpg-system wait --for=condition=Available deploy/cnpg-controller-manager --timeout=300s
	$(KUBECTL) --context $(KIND_CONTEXT) -n acct wait --for=condition=Available deploy/strimzi-cluster-operator --timeout=300s

# skaffold runs helm from PATH: the pinned one from .cache/bin (mk/chart.mk) comes first.
kind-deploy: $(HELM_BIN) ## build the images and deploy the chart into kind (skaffold run -p kind)
	$(call need-tool,docker)
	$(call need-tool,$(SKAFFOLD))
	PATH="$(dir $(HELM_BIN)):$$PATH" $(SKAFFOLD) run -p kind --kube-context $(KIND_CONTEXT)

kind-e2e: ## run the e2e suite against the suite deployed in kind (through ingress on E2E_BASE_URL)
	$(call need-tool,$(KUBECTL))
	@$(KUBECTL) --context $(KIND_CONTEXT) -n acct rollout status deploy/acct-gateway --timeout=300s
	cd e2e && E2E_BASE_URL=$(E2E_BASE_URL) \
		E2E_CLIENT_ID=$$($(KUBECTL) --context $(KIND_CONTEXT) -n acct get secret acct-auth-tokens -o jsonpath='{.data.BOOTSTRAP_CLIENT_ID}' | base64 -d) \
		E2E_CLIENT_SECRET=$$($(KUBECTL) --context $(KIND_CONTEXT) -n acct get secret acct-auth-tokens -o jsonpath='{.data.BOOTSTRAP_CLIENT_SECRET}' | base64 -d) \
		E2E_K8S_NAMESPACE=acct E2E_K8S_CONTEXT=$(KIND_CONTEXT) E2E_KUBECTL=$(KUBECTL) \
		$(GO) test -count=1 -timeout 30m ./...

kind-down: ## delete the kind cluster
	$(call need-tool,$(KIND))
	$(KIND) delete cluster --name $(KIND_CLUSTER)
