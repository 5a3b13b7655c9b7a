// Package http is the mileage service's HTTP adapter: Fiber handlers that
// parse a request, call the use cases and render the answer in the spec's
// shapes (and the client SDK's, see client-shapes.md), one file per
// resource. Errors go to httpx's error handler unchanged.
package http

import (
	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/httpauth"
	"github.com/acctsuite/acct/pkg/httpguard"
	"github.com/acctsuite/acct/pkg/page"
	"github.com/acctsuite/acct/services/mileage/internal/app"
)

// MaxBody bounds a vehicle or trip body; MaxBulkBody a bulk of 100 trips.
const (
	MaxBody     = 64 << 10
	MaxBulkBody = 4 << 20
)

// Options are the collaborators of the handlers.
type Options struct {
	Mileage *app.Mileage
	// Guards are the kit's route guards (token, tenancy, idempotency,
	// cursor codec).
	httpguard.Guards
}

type handlers struct {
	app   *app.Mileage
	codec *page.Codec
}

// Register mounts every route of the service on r.
func Register(r fiber.Router, o Options) {
	h := &handlers{app: o.Mileage, codec: o.Cursors}
	idem := o.Idem()
	const p = "/v1/businesses/:businessId/mileage"
	auth, biz := o.Auth, o.Business

	r.Post(p+"/vehicles", auth, biz, idem, h.createVehicle)
	r.Get(p+"/vehicles", auth, biz, h.listVehicles)
	r.Get(p+"/vehicles/:vehicleId", auth, biz, h.getVehicle)
	r.Patch(p+"/vehicles/:vehicleId", auth, biz, h.patchVehicle)
	r.Delete(p+"/vehicles/:vehicleId", auth, biz, h.deleteVehicle)
	r.Post(p+"/vehicles/:vehicleId/archive", auth, biz, h.archiveVehicle)
	r.Post(p+"/vehicles/:vehicleId/reactivate", auth, biz, h.reactivateVehicle)

	// Static segments (bulk) before :tripId.
	r.Post(p+"/trips/bulk", auth, biz, idem, h.bulkTrips)
	r.Post(p+"/trips", auth, biz, idem, h.createTrip)
	r.Get(p+"/trips", auth, biz, h.listTrips)
	r.Get(p+"/trips/:tripId", auth, biz, h.getTrip)
	r.Patch(p+"/trips/:tripId", auth, biz, h.patchTrip)
	r.Delete(p+"/trips/:tripId", auth, biz, h.deleteTrip)

	r.Get(p+"/summary", auth, biz, h.summary)
}

// businessID is the business RequireBusiness authorised.
func businessID(c *fiber.Ctx) uuid.UUID {
	id, _ := httpauth.BusinessIDFrom(c)
	return id
}
