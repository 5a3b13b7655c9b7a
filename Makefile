# The two commands a newcomer needs: `make run` (whole suite locally) and `make test`.
# Targets of images, chart, kind and e2e live in mk/*.mk.
SHELL := /bin/bash
GO ?= go
REGISTRY ?= ghcr.io/acctsuite
TAG ?= dev
SERVICES := auth-tokens gateway
IMAGES := $(SERVICES) broker
MODULES := pkg $(addprefix services/,$(SERVICES)) tools e2e

.DEFAULT_GOAL := help

.PHONY: help
help: ## list targets
	@grep -hE '^[a-zA-Z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

include $(wildcard mk/*.mk)
