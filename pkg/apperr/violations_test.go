package apperr

import (
	"errors"
	"testing"
)

func TestViolations(t *testing.T) {
	v := NewViolations(InvalidPayload)
	if v.Err() != nil || v.Any() {
		t.Fatal("an empty collection is an error")
	}
	v.Add("amount", "InvalidAmount", "must be positive")
	v.Add("amount", "Other", "second reason") // the first reason stays
	v.Add("date", "InvalidDate", "bad date")
	v.Meta("expected", 100)
	if err := v.Merge(FieldErrors(InvalidPayload, map[string]string{"tags[0].key": "empty"}).WithEnum("InvalidTags")); err != nil {
		t.Fatal(err)
	}
	if err := v.Merge(errors.New("database down")); err == nil {
		t.Fatal("a 5xx error was swallowed")
	}
	if err := v.Merge(New(Conflict, "no fields")); err != nil || !v.Has("") {
		t.Fatalf("an error without fields: %v", err)
	}
	var ae *Error
	if !errors.As(v.Err(), &ae) || ae.Status() != 400 || ae.Enum != "InvalidAmount" || ae.Meta["expected"] != 100 {
		t.Fatalf("error = %+v", ae)
	}
	fields := ae.Meta["fields"].(map[string]string)
	if fields["amount"] != "must be positive" || fields["date"] != "bad date" || fields["tags[0].key"] != "empty" || !v.Has("date") {
		t.Fatalf("fields = %v", fields)
	}
}
