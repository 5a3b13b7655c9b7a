# The chart in a real Kubernetes cluster, end to end (not part of `make test`).
#
# K8S_PROVIDER picks the cluster:
#   kind    the kind targets of mk/kind.mk (kind-up, kind-deploy, kind-e2e, kind-down); needs kind,
#           kubectl, skaffold and a reachable image registry
#   local   a one-node cluster of host processes built from the Go module proxy (deploy/k8s-local:
#           etcd, kube-apiserver, controller-manager, scheduler, kubelet on containerd, kube-proxy,
#           CoreDNS), the images copied from Docker; needs root, Docker, containerd, runc and
#           Debian's containernetworking-plugins, conntrack and ipset (kube-router enforces the NetworkPolicies)
#   auto    kind when those tools are on PATH and Docker Hub answers, else local (the default)
# Variables from the top Makefile and mk/*.mk: REGISTRY, TAG, GO, HELM_BIN, PG_OFFLINE_IMAGE, KIND,
# KUBECTL, SKAFFOLD.

K8S_PROVIDER ?= auto
K8S_LOCAL := deploy/k8s-local

# k8s_provider: the provider K8S_PROVIDER names, auto resolved at run time.
define k8s_provider
p='$(K8S_PROVIDER)'; \
if [[ "$$p" == auto ]]; then \
	p=local; \
	if command -v $(KIND) >/dev/null 2>&1 && command -v $(KUBECTL) >/dev/null 2>&1 && command -v $(SKAFFOLD) >/dev/null 2>&1 && \
		[[ "$$(curl -s -o /dev/null -m 5 -w '%{http_code}' https://registry-1.docker.io/v2/)" != 000 ]]; then p=kind; fi; \
fi
endef

.PHONY: k8s-e2e k8s-e2e-local k8s-up k8s-down k8s-build

k8s-e2e: ## the chart in a real cluster: start one (kind, or a local one-node cluster offline), install the suite with Helm, wait for Jobs/Deployments/probes, run the e2e scenarios, print failing pods' logs, tear down
	@set -euo pipefail; $(k8s_provider); echo "k8s-e2e: provider $$p"; \
	if [[ "$$p" == kind ]]; then \
		rc=0; $(MAKE) --no-print-directory kind-up kind-deploy kind-e2e || rc=$$?; \
		$(MAKE) --no-print-directory kind-down || true; exit $$rc; \
	else \
		$(MAKE) --no-print-directory k8s-e2e-local; \
	fi

# versitygw by its target name: mk/storage.mk, read after this file, defines $(VERSITYGW_BIN).
k8s-e2e-local: images pg-image $(HELM_BIN) versitygw
	REGISTRY='$(REGISTRY)' TAG='$(TAG)' PG_IMAGE='$(PG_OFFLINE_IMAGE)' HELM_BIN='$(HELM_BIN)' VERSITYGW_BIN='$(VERSITYGW_BIN)' GO='$(GO)' \
		$(K8S_LOCAL)/e2e.sh

k8s-build: ## build the local cluster's binaries and images into .cache/k8s-local (once; about 15 minutes cold on 2 cores)
	$(K8S_LOCAL)/build.sh

k8s-up: ## start the local one-node cluster (deploy/k8s-local) and leave it running; KUBECONFIG: deploy/k8s-local/cluster.sh env
	$(K8S_LOCAL)/cluster.sh up

k8s-down: ## stop the local one-node cluster and remove its state (built binaries and images stay cached)
	$(K8S_LOCAL)/cluster.sh down
