# End-to-end suite (e2e/, testcontainers-go) and the offline PostgreSQL image it can use.
#
# PostgreSQL image, in this order:
#   E2E_POSTGRES_IMAGE=<ref>   use that image as is
#   E2E_OFFLINE=1              the offline image $(PG_OFFLINE_IMAGE), built by `make pg-image`
#   E2E_OFFLINE=0              the official $(PG_ONLINE_IMAGE) (pulled by Docker if missing)
#   neither                    the official image when it is already present locally, else offline
# The choice is printed. Variables from the top Makefile: REGISTRY, TAG, GO.

PG_ONLINE_IMAGE ?= postgres:16-alpine
PG_OFFLINE_IMAGE ?= acct-postgres-offline:15
E2E_TIMEOUT ?= 20m
E2E_TEST_FLAGS ?= -v
E2E_OFFLINE ?=
E2E_POSTGRES_IMAGE ?=
DOCKER ?= docker

.PHONY: pg-image e2e e2e-if-docker

pg-image: ## build the offline PostgreSQL image from the host's PostgreSQL 15 packages (no registry)
	deploy/postgres-offline/build.sh $(PG_OFFLINE_IMAGE)

e2e: images ## run the end-to-end suite against the images on one Docker network
	@set -euo pipefail; \
	pg_image='$(E2E_POSTGRES_IMAGE)'; offline='$(E2E_OFFLINE)'; \
	if [[ -n "$$pg_image" ]]; then \
		reason="E2E_POSTGRES_IMAGE"; \
	elif [[ "$$offline" == 1 || "$$offline" == true ]]; then \
		pg_image='$(PG_OFFLINE_IMAGE)'; reason="offline mode: E2E_OFFLINE=$$offline"; \
	elif [[ "$$offline" == 0 || "$$offline" == false ]]; then \
		pg_image='$(PG_ONLINE_IMAGE)'; reason="online mode: E2E_OFFLINE=$$offline"; \
	elif $(DOCKER) image inspect '$(PG_ONLINE_IMAGE)' >/dev/null 2>&1; then \
		pg_image='$(PG_ONLINE_IMAGE)'; reason="online mode: $(PG_ONLINE_IMAGE) is present locally"; \
	else \
		pg_image='$(PG_OFFLINE_IMAGE)'; reason="offline mode: $(PG_ONLINE_IMAGE) is not present locally"; \
	fi; \
	echo "e2e: PostgreSQL image $$pg_image ($$reason)"; \
	if [[ "$$pg_image" == '$(PG_OFFLINE_IMAGE)' ]]; then $(MAKE) --no-print-directory pg-image; fi; \
	cd e2e && TESTCONTAINERS_RYUK_DISABLED=true E2E_REGISTRY='$(REGISTRY)' E2E_TAG='$(TAG)' \
		E2E_POSTGRES_IMAGE="$$pg_image" $(GO) test -count=1 -timeout $(E2E_TIMEOUT) $(E2E_TEST_FLAGS) ./...

e2e-if-docker: ## `make e2e` when a Docker engine answers, else say clearly that it is skipped
	@if $(DOCKER) info >/dev/null 2>&1; then \
		$(MAKE) --no-print-directory e2e; \
	else \
		echo "SKIPPING e2e: no Docker engine (\`$(DOCKER) info\` failed); run \`make e2e\` on a machine with Docker"; \
	fi
