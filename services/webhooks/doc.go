// Package webhooks is the webhooks service: platforms' endpoints and the
// domain topics' changes delivered to them as thin, signed webhooks
// (Standard Webhooks), retried, in order per business, never lost. The
// package itself holds what belongs to the service as a whole: its
// embedded OpenAPI document.
package webhooks
