// Package chartcheck validates the deployment artefacts of the suite without a cluster: it renders
// charts/acct with helm (built from the Go module proxy), decodes every rendered object strictly with
// the official Kubernetes API types (CRDs as unstructured objects with required-field checks), and
// checks the security and availability policies every service must meet. Its tests also validate
// skaffold.yaml and deploy/kind/cluster.yaml structurally.
package chartcheck
