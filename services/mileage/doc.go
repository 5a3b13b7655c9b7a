// Package mileage is the mileage service: vehicles, trips and the mileage
// summary with the IRS standard deduction rates, published on
// acct.mileage.v1. The package itself holds what belongs to the
// service as a whole: its embedded OpenAPI document.
package mileage
