# Container images.
#
# `make images` is the offline path: it builds every static binary on the host in one `go build`
# (so the build cache is shared), stages a root filesystem (CA bundle, tzdata, passwd/group with the
# distroless `nonroot` user 65532) and packs each binary `FROM scratch` with the same entrypoint and
# user as the multi-stage Dockerfiles (services/<s>/Dockerfile), which need registry access for their
# golang and distroless base images. No registry is contacted here.
#
# Variables from the top Makefile: REGISTRY, TAG, SERVICES, IMAGES, GO.

DIST ?= dist
DOCKER ?= docker
IMAGE_GOOS ?= linux
IMAGE_GOARCH ?= $(shell $(GO) env GOARCH)
CA_BUNDLE ?= /etc/ssl/certs/ca-certificates.crt
ZONEINFO_DIR ?= /usr/share/zoneinfo
IMAGE_REVISION ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)

# image_ref name -> registry reference; image_pkg name -> main package it builds from.
image_ref = $(REGISTRY)/acct-$(1):$(TAG)
image_pkg = $(if $(filter broker,$(1)),./tools/cmd/broker,./services/$(1)/cmd/$(1))

IMAGE_BIN_DIR := $(DIST)/bin
IMAGE_ROOTFS := $(DIST)/rootfs
# Images that read receipts: Tesseract and pdftoppm from the host's packages go in (deploy/ocr).
OCR_IMAGES ?= bills-tags

.PHONY: images image-binaries image-rootfs images-list images-clean $(addprefix image-,$(IMAGES))

images: image-binaries image-rootfs $(addprefix image-,$(IMAGES)) ## build every image offline (FROM scratch, no registry)
	@echo "built: $(foreach i,$(IMAGES),$(call image_ref,$(i)))"

images-list: ## print the image references `make images` builds
	@$(foreach i,$(IMAGES),echo $(call image_ref,$(i));)

# One invocation for all mains: the packages share most of their dependency graph.
image-binaries:
	@mkdir -p $(IMAGE_BIN_DIR)
	CGO_ENABLED=0 GOOS=$(IMAGE_GOOS) GOARCH=$(IMAGE_GOARCH) $(GO) build -trimpath -ldflags "-s -w" \
		-o $(IMAGE_BIN_DIR)/ $(foreach i,$(IMAGES),$(call image_pkg,$(i)))

image-rootfs:
	@test -r $(CA_BUNDLE) || { echo "error: $(CA_BUNDLE) missing: apt-get install -y ca-certificates" >&2; exit 1; }
	@test -d $(ZONEINFO_DIR) || { echo "error: $(ZONEINFO_DIR) missing: apt-get install -y tzdata" >&2; exit 1; }
	@rm -rf $(IMAGE_ROOTFS) && mkdir -p $(IMAGE_ROOTFS)/etc/ssl/certs $(IMAGE_ROOTFS)/usr/share $(IMAGE_ROOTFS)/tmp
	@cp -L $(CA_BUNDLE) $(IMAGE_ROOTFS)/etc/ssl/certs/ca-certificates.crt
	@cp -a $(ZONEINFO_DIR) $(IMAGE_ROOTFS)/usr/share/zoneinfo
	@printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' > $(IMAGE_ROOTFS)/etc/passwd
	@printf 'root:x:0:\nnobody:x:65534:\nnonroot:x:65532:\n' > $(IMAGE_ROOTFS)/etc/group
	@chmod 1777 $(IMAGE_ROOTFS)/tmp

# Each image gets its own small context: the shared rootfs plus its binary.
$(addprefix image-,$(IMAGES)): image-%: image-binaries image-rootfs
	@rm -rf $(DIST)/$* && mkdir -p $(DIST)/$*
	@cp -a $(IMAGE_ROOTFS) $(DIST)/$*/rootfs
	@cp $(IMAGE_BIN_DIR)/$* $(DIST)/$*/rootfs/$*
	@$(if $(filter $*,$(OCR_IMAGES)),deploy/ocr/add-ocr.sh $(DIST)/$*/rootfs)
	@printf '%s\n' \
		'FROM scratch' \
		'COPY rootfs/ /' \
		'LABEL org.opencontainers.image.title="acct-$*" org.opencontainers.image.revision="$(IMAGE_REVISION)" org.opencontainers.image.version="$(TAG)"' \
		'USER 65532:65532' \
		'EXPOSE $(if $(filter broker,$*),9092,8080)' \
		'ENTRYPOINT ["/$*"]' > $(DIST)/$*/Dockerfile
	$(DOCKER) build -q -t $(call image_ref,$*) $(DIST)/$*

images-clean: ## remove the staged image contexts under dist/
	rm -rf $(IMAGE_BIN_DIR) $(IMAGE_ROOTFS) $(addprefix $(DIST)/,$(IMAGES))
