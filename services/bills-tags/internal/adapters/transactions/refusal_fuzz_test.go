package transactions

import (
	"encoding/json"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr/apperrtest"
)

// FuzzRefusal feeds arbitrary 4xx answers of the transactions service (the
// external answer the tag endpoints relay) to refusal: the result is a
// 4xx error object with a message whatever the body, and it renders as
// JSON (its meta comes from the answer).
func FuzzRefusal(f *testing.F) {
	f.Add(400, []byte(`{"error_enum":"InvalidTags","description":"tags[0].key: too long","meta":{"fields":{"ids[0]":"not found","tags[0].key":"too long"}}}`))
	f.Add(404, []byte(`{"error_enum":"NotFound","description":"no such transaction"}`))
	f.Add(401, []byte(`{}`))
	f.Add(409, []byte(`{"meta":{"fields":"x","ids":[1,{"a":null}]}}`))
	f.Add(422, []byte(`not json`))
	f.Add(400, []byte(`{"meta":{"fields":{"":1e400}}}`))
	f.Fuzz(func(t *testing.T, status int, raw []byte) {
		status = 400 + (status%100+100)%100
		err := refusal(status, raw)
		e := apperrtest.Require4xx(t, err)
		if _, err := json.Marshal(e.Body()); err != nil {
			t.Fatalf("refusal of %d %s does not render: %v", status, raw, err)
		}
	})
}
