package domain

import "github.com/acctsuite/acct/pkg/apperr"

// Error enums of the webhooks API.
const (
	EnumInvalidEndpoint   = "InvalidEndpoint"
	EnumEndpointNotFound  = "EndpointNotFound"
	EnumDeliveryNotFound  = "DeliveryNotFound"
	EnumEndpointLimit     = "EndpointLimitReached"
	EnumEndpointDisabled  = "EndpointDisabled"
	EnumURLRefused        = "URLRefused"
	EnumInvalidParameters = "InvalidParameters"
)

// ErrEndpointNotFound is the 404 of an endpoint that is not the
// platform's (or does not exist: the two are not told apart).
func ErrEndpointNotFound() error {
	return apperr.New(apperr.NotFound, "webhook endpoint not found").WithEnum(EnumEndpointNotFound)
}

// ErrDeliveryNotFound is the 404 of a delivery not of that endpoint.
func ErrDeliveryNotFound() error {
	return apperr.New(apperr.NotFound, "delivery not found").WithEnum(EnumDeliveryNotFound)
}

// Violations is vs as a 400 error (nil when there are none).
func Violations(vs []Violation) error {
	if len(vs) == 0 {
		return nil
	}
	v := apperr.NewViolations(apperr.InvalidPayload)
	for _, x := range vs {
		v.Add(x.Field, EnumInvalidEndpoint, x.Reason)
	}
	return v.Err()
}
