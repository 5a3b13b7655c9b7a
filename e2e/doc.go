// Package e2e is the end-to-end suite of the accounting API: it starts the
// real images built by `make images` (PostgreSQL, the Kafka-protocol broker,
// every service and the gateway) on one Docker network with testcontainers-go
// and drives the public API only through the gateway, like a user would.
//
// Configuration (environment):
//
//	E2E_REGISTRY, E2E_TAG   image names $(E2E_REGISTRY)/acct-<name>:$(E2E_TAG)
//	                        (defaults ghcr.io/acctsuite and dev, as the Makefile)
//	E2E_POSTGRES_IMAGE      PostgreSQL image; default postgres:16-alpine, or
//	                        acct-postgres-offline:15 when E2E_OFFLINE=1
//	E2E_BASE_URL            run the API scenarios against an already deployed
//	                        gateway (e.g. in kind) instead of starting containers;
//	                        E2E_CLIENT_ID and E2E_CLIENT_SECRET are then its
//	                        platform credentials
//	E2E_RECEIVER_HOST       with E2E_BASE_URL: the address by which the deployed
//	                        webhooks service reaches this machine, where the
//	                        webhook scenarios start their receivers
//	E2E_K8S_NAMESPACE       with E2E_BASE_URL: the chart's namespace in a
//	                        Kubernetes cluster; the rolling-restart scenario
//	                        restarts its Deployments (E2E_K8S_SELECTOR, default
//	                        app.kubernetes.io/instance=acct; E2E_KUBECTL, default
//	                        kubectl; E2E_K8S_CONTEXT, the kubeconfig context)
//	                        under load
//	E2E_KEEP_LOGS=1         print every container's log at the end, not only on failure
//
// Only test files carry code: the package is never imported.
package e2e
