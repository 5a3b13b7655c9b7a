package tags

import (
	"testing"

	"github.com/google/uuid"
)

var (
	biz1 = uuid.MustParse("0190c4c4-0000-7000-8000-000000000001")
	biz2 = uuid.MustParse("0190c4c4-0000-7000-8000-000000000002")
)

// TestKnownIDs pins the ids: they are stored and derived independently by
// every service, so they must never change. The expected values were
// computed outside Go (Python's uuid.uuid5 with NFC-normalised text).
func TestKnownIDs(t *testing.T) {
	tests := []struct {
		business   uuid.UUID
		key, value string
		dimension  string
		definition string
	}{
		{biz1, "project", "alpha", "4363752b-6979-55db-9ed9-7fa5576fa661", "504a97b7-b5de-525f-8e50-61716c1a7d39"},
		{biz1, "Project", "alpha", "4bc81bbd-ee9e-5706-981b-d2e05cd99c81", "2e4fff8c-80d9-5e40-acb6-9f2d4fdef4d6"},
		{biz2, "project", "alpha", "c6a689da-2d8d-56b3-b363-81276dd7bf3b", "df6b05f4-90f5-5927-aea3-a112f67f676c"},
		{biz1, "a", "bc", "1ddc205f-5118-541a-9dc4-c13624fe7846", "fe48661d-153b-557e-b75a-d6cae572d302"},
		{biz1, "ab", "c", "3ae4a0ba-53e4-56be-afdf-f7d3fce0ae49", "5c7a76c0-d881-52a4-a51a-38d9816ac138"},
		{biz1, "région", "Québec", "49c46876-6771-5e8e-81e7-c90718c72a38", "09a16861-be35-5ee4-872d-4b93b6542a2c"},
		// The same text with decomposed accents and surrounding spaces.
		{biz1, "  re\u0301gion\t", " Que\u0301bec ", "49c46876-6771-5e8e-81e7-c90718c72a38", "09a16861-be35-5ee4-872d-4b93b6542a2c"},
	}
	for _, tc := range tests {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			if got := DimensionID(tc.business, tc.key); got.String() != tc.dimension {
				t.Errorf("DimensionID = %s, want %s", got, tc.dimension)
			}
			if got := DefinitionID(tc.business, tc.key, tc.value); got.String() != tc.definition {
				t.Errorf("DefinitionID = %s, want %s", got, tc.definition)
			}
			if v := DimensionID(tc.business, tc.key).Version(); v != 5 {
				t.Errorf("version %d, want 5", v)
			}
		})
	}
	entity := uuid.MustParse("0190c4c4-0000-7000-8000-0000000000aa")
	if got := TagID(DefinitionID(biz1, "project", "alpha"), entity); got.String() != "d93e7b0d-4308-5fa9-970b-64f165845173" {
		t.Errorf("TagID = %s", got)
	}
}

// TestIDsDistinct: every change of business, key or value gives new ids,
// and a dimension id never equals a definition id.
func TestIDsDistinct(t *testing.T) {
	type triple struct {
		b    uuid.UUID
		k, v string
	}
	inputs := []triple{
		{biz1, "a", "bc"}, {biz1, "ab", "c"}, {biz1, "abc", ""}, {biz1, "", "abc"},
		{biz2, "a", "bc"}, {biz1, "A", "bc"}, {biz1, "a", "BC"}, {biz1, "a b", "c"}, {biz1, "a", "b c"},
		{biz1, "project", "alpha"}, {biz1, "project", "beta"}, {biz1, "team", "alpha"},
	}
	seen := map[uuid.UUID]string{}
	record := func(id uuid.UUID, what string) {
		t.Helper()
		if prev, dup := seen[id]; dup && prev != what {
			t.Fatalf("%s and %s share id %s", prev, what, id)
		}
		seen[id] = what
	}
	for _, in := range inputs {
		record(DimensionID(in.b, in.k), "dimension "+in.b.String()+"/"+in.k)
		record(DefinitionID(in.b, in.k, in.v), "definition "+in.b.String()+"/"+in.k+"="+in.v)
	}
	e1 := uuid.MustParse("0190c4c4-0000-7000-8000-0000000000aa")
	e2 := uuid.MustParse("0190c4c4-0000-7000-8000-0000000000bb")
	def := DefinitionID(biz1, "project", "alpha")
	if TagID(def, e1) == TagID(def, e2) || TagID(def, e1) == TagID(DefinitionID(biz1, "project", "beta"), e1) {
		t.Fatal("tag ids collide across entities or definitions")
	}
	if TagID(def, e1) != TagID(def, e1) {
		t.Fatal("TagID is not deterministic")
	}
}
