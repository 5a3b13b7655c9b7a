package tags

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/acctsuite/acct/pkg/apperr"
)

func ptr(s string) *string { return &s }

func TestNormalizeKey(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr error
	}{
		{"project", "project", nil},
		{"  Project  ", "Project", nil}, // case kept
		{"re\u0301gion", "région", nil}, // NFC
		{"a b", "a b", nil},             // inner spaces kept
		{"👨‍👩‍👧", "👨‍👩‍👧", nil},         // emoji with zero-width joiners
		{strings.Repeat("é", MaxKeyLength), strings.Repeat("é", MaxKeyLength), nil}, // characters, not bytes
		{"", "", ErrEmpty},
		{" \t\n ", "", ErrEmpty},
		{strings.Repeat("k", MaxKeyLength+1), "", ErrTooLong},
		{"a\tb", "", ErrInvalidText},
		{"a\nb", "", ErrInvalidText},
		{"a\x00b", "", ErrInvalidText},
		{"a\x7fb", "", ErrInvalidText},
		{"a\u0085b", "", ErrInvalidText}, // C1 control
		{"a\u2028b", "", ErrInvalidText},
		{"a\u202Eb", "", ErrInvalidText}, // right-to-left override
		{"a\u2067b", "", ErrInvalidText},
		{"a\xffb", "", ErrInvalidText}, // invalid UTF-8
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%q", tc.in), func(t *testing.T) {
			got, err := NormalizeKey(tc.in)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("NormalizeKey(%q) = %q, %v; want %v", tc.in, got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NormalizeKey(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
		})
	}
}

func TestNormalizeValueLimit(t *testing.T) {
	if _, err := NormalizeValue(strings.Repeat("v", MaxValueLength)); err != nil {
		t.Fatalf("value of %d characters: %v", MaxValueLength, err)
	}
	_, err := NormalizeValue(strings.Repeat("v", MaxValueLength+1))
	if !errors.Is(err, ErrTooLong) || err.Error() != "too long: at most 200 characters, got 201" {
		t.Fatalf("value of %d characters: %v, want ErrTooLong naming the limit", MaxValueLength+1, err)
	}
}

// fieldsOf returns meta.fields of a 400 InvalidPayload error with the tags
// enum, failing the test for any other error.
func fieldsOf(t *testing.T, err error) map[string]string {
	t.Helper()
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Status() != 400 || ae.Type != apperr.InvalidPayload || ae.Body().ErrorEnum != EnumInvalidTags {
		t.Fatalf("error %v is not a 400 InvalidPayload %s", err, EnumInvalidTags)
	}
	fields, _ := ae.Meta["fields"].(map[string]string)
	return fields
}

func TestNormalizeList(t *testing.T) {
	tests := []struct {
		name       string
		in         []KeyValue
		want       []KeyValue
		wantFields map[string]string
	}{
		{
			name: "nil is an empty list",
			in:   nil,
			want: []KeyValue{},
		},
		{
			name: "normalised",
			in:   []KeyValue{{Key: " project ", Value: "Que\u0301bec", DimensionDisplayName: ptr(" Project "), ValueDisplayName: ptr("  ")}},
			want: []KeyValue{{Key: "project", Value: "Québec", DimensionDisplayName: ptr("Project")}},
		},
		{
			name: "duplicates collapse to the first occurrence",
			in: []KeyValue{
				{Key: "project", Value: "alpha", ValueDisplayName: ptr("Alpha")},
				{Key: "team", Value: "ops"},
				{Key: " project", Value: "alpha ", ValueDisplayName: ptr("Other")},
				{Key: "project", Value: "beta"},
				{Key: "Project", Value: "alpha"},
			},
			want: []KeyValue{
				{Key: "project", Value: "alpha", ValueDisplayName: ptr("Alpha")},
				{Key: "team", Value: "ops"},
				{Key: "project", Value: "beta"},
				{Key: "Project", Value: "alpha"},
			},
		},
		{
			name: "every offending field is named with its index",
			in: []KeyValue{
				{Key: "ok", Value: "ok"},
				{Key: "", Value: "x"},
				{Key: "k", Value: " ", DimensionDisplayName: ptr("a\nb")},
				{Key: strings.Repeat("k", 101), Value: "v", ValueDisplayName: ptr(strings.Repeat("d", 201))},
			},
			wantFields: map[string]string{
				"tags[1].key":                    "must not be empty",
				"tags[2].value":                  "must not be empty",
				"tags[2].dimension_display_name": "must be valid UTF-8 without control characters: U+000A at character 2",
				"tags[3].key":                    "too long: at most 100 characters, got 101",
				"tags[3].value_display_name":     "too long: at most 200 characters, got 201",
			},
		},
		{
			name:       "too many",
			in:         make([]KeyValue, MaxTags+1),
			wantFields: map[string]string{"tags": "at most 50 tags, got 51"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := NormalizeList("tags", tc.in)
			if tc.wantFields != nil {
				if fields := fieldsOf(t, err); !reflect.DeepEqual(fields, tc.wantFields) {
					t.Fatalf("fields = %v\nwant     %v", fields, tc.wantFields)
				}
				if got != nil {
					t.Fatalf("got %v with an error", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("NormalizeList = %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestNormalizeListAtLimit(t *testing.T) {
	in := make([]KeyValue, MaxTags)
	for i := range in {
		in[i] = KeyValue{Key: "k", Value: fmt.Sprint(i)}
	}
	got, err := NormalizeList("key_values", in)
	if err != nil || len(got) != MaxTags {
		t.Fatalf("%d tags: %d kept, %v", MaxTags, len(got), err)
	}
}

func TestNormalizeOne(t *testing.T) {
	got, err := Normalize("tag", KeyValue{Key: " k ", Value: " v "})
	if err != nil || got != (KeyValue{Key: "k", Value: "v"}) {
		t.Fatalf("Normalize = %+v, %v", got, err)
	}
	_, err = Normalize("tag", KeyValue{Key: "k"})
	if fields := fieldsOf(t, err); !reflect.DeepEqual(fields, map[string]string{"tag.value": "must not be empty"}) {
		t.Fatalf("fields = %v", fields)
	}
}
