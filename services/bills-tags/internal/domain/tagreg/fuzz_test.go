package tagreg

import (
	"errors"
	"testing"
	"unicode/utf8"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/tags"
)

// checkParse: a parser either accepts (and then its output follows the
// tag rules) or refuses with a 400 error object naming at least one field.
func checkParse(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Status() != 400 {
		t.Fatalf("error %v is not a 400 error object", err)
	}
	if fs, ok := ae.Meta["fields"].(map[string]string); !ok || len(fs) == 0 {
		t.Fatalf("error %v names no field", err)
	}
}

func checkText(t *testing.T, what, s string, max int) {
	t.Helper()
	if s == "" || !utf8.ValidString(s) || utf8.RuneCountInString(s) > max || s != tags.NormalizeText(s) {
		t.Fatalf("%s %q breaks the tag rules", what, s)
	}
}

func FuzzParseCreate(f *testing.F) {
	f.Add(`{"key":"dept","strictness":"BALANCING","display_name":"Department","defined_values":["ops",{"value":"sales","display_name":"Sales"}]}`)
	f.Add(`{"key":"k"}`)
	f.Add(`{"key":" re\u0301gion ","defined_values":[{"value":"a","displayName":"A"}]}`)
	f.Add(`{"key":"","defined_values":[1,null,{}]}`)
	f.Add(`{"key":"k","strictness":null,"display_name":null,"defined_values":null}`)
	f.Add(`[]`)
	f.Add(`{"key":"k","x":1}`)
	f.Fuzz(func(t *testing.T, body string) {
		in, err := ParseCreate([]byte(body))
		checkParse(t, err)
		if err != nil {
			return
		}
		checkText(t, "key", in.Key, tags.MaxKeyLength)
		if !in.Strictness.Valid() || len(in.Values) > MaxDefinedValues {
			t.Fatalf("input = %+v", in)
		}
		seen := map[string]bool{}
		for _, v := range in.Values {
			checkText(t, "value", v.Value, tags.MaxValueLength)
			if seen[v.Value] {
				t.Fatalf("duplicate value %q", v.Value)
			}
			seen[v.Value] = true
		}
	})
}

func FuzzParsePatch(f *testing.F) {
	f.Add(`{"display_name":"X","strictness":"NON_BALANCING","user_visible":false}`)
	f.Add(`{"display_name":null}`)
	f.Add(`{}`)
	f.Add(`{"user_visible":"yes"}`)
	f.Fuzz(func(t *testing.T, body string) {
		p, err := ParsePatch([]byte(body))
		checkParse(t, err)
		if err == nil && p.DisplayName != nil {
			checkText(t, "display name", *p.DisplayName, tags.MaxDisplayNameLength)
		}
	})
}

func FuzzParseValue(f *testing.F) {
	f.Add(`{"value":"ops","display_name":"Ops"}`)
	f.Add(`{"value":"ops","displayName":"Ops"}`)
	f.Add(`{"value":""}`)
	f.Add(`"ops"`)
	f.Fuzz(func(t *testing.T, body string) {
		v, err := ParseValue([]byte(body))
		checkParse(t, err)
		if err == nil {
			checkText(t, "value", v.Value, tags.MaxValueLength)
		}
	})
}

func FuzzParseTagRequest(f *testing.F) {
	f.Add(`{"key_values":[{"key":"k","value":"v"}],"entity_ids":["0190c4c4-0000-7000-8000-000000000001"],"entity_type":"BILL"}`)
	f.Add(`{"key_values":[{"key":"k","value":"v","dimension_display_name":"K"}],"entity_ids":["0190c4c4-0000-7000-8000-000000000001","0190c4c4-0000-7000-8000-000000000001"],"entity_type":"BANK_TRANSACTION"}`)
	f.Add(`{"key_values":[],"entity_ids":[],"entity_type":"X"}`)
	f.Add(`{"key_values":[{"key":1}],"entity_ids":[1]}`)
	f.Fuzz(func(t *testing.T, body string) {
		r, err := ParseTagRequest([]byte(body))
		checkParse(t, err)
		if err != nil {
			return
		}
		if !r.EntityType.Valid() || len(r.EntityIDs) == 0 || len(r.EntityIDs) > MaxEntities || len(r.KeyValues) == 0 || len(r.KeyValues) > tags.MaxTags {
			t.Fatalf("request = %+v", r)
		}
		for _, kv := range r.KeyValues {
			checkText(t, "key", kv.Key, tags.MaxKeyLength)
			checkText(t, "value", kv.Value, tags.MaxValueLength)
		}
	})
}
