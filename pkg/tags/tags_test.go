package tags

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestNewTagJSON(t *testing.T) {
	entity := uuid.MustParse("0190c4c4-0000-7000-8000-0000000000aa")
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	tag := NewTag(biz1, entity, KeyValue{Key: " project", Value: "alpha ", DimensionDisplayName: ptr("Project"), ValueDisplayName: ptr(" ")}, at)

	out, err := json.Marshal(tag)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"d93e7b0d-4308-5fa9-970b-64f165845173","key":"project","value":"alpha",` +
		`"dimension_id":"4363752b-6979-55db-9ed9-7fa5576fa661","definition_id":"504a97b7-b5de-525f-8e50-61716c1a7d39",` +
		`"dimension_display_name":"Project","value_display_name":null,` +
		`"created_at":"2026-03-04T05:06:07Z","updated_at":"2026-03-04T05:06:07Z","deleted_at":null,"archived_at":null}`
	if string(out) != want {
		t.Fatalf("tag JSON\n got %s\nwant %s", out, want)
	}
}

func TestKeyValueJSON(t *testing.T) {
	var kv KeyValue
	if err := json.Unmarshal([]byte(`{"key":"k","value":"v","dimension_display_name":null,"value_display_name":"V"}`), &kv); err != nil {
		t.Fatal(err)
	}
	if kv.Key != "k" || kv.Value != "v" || kv.DimensionDisplayName != nil || kv.ValueDisplayName == nil || *kv.ValueDisplayName != "V" {
		t.Fatalf("decoded %+v", kv)
	}
}

func TestDimensionJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 0, 0, 0, 0, time.UTC)
	d := Dimension{ID: DimensionID(biz1, "project"), Key: "project", Strictness: NonBalancing, CreatedAt: at, UpdatedAt: at, UserVisible: true}
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(out, &decoded); err != nil {
		t.Fatal(err)
	}
	if vals, ok := decoded["defined_values"].([]any); !ok || len(vals) != 0 {
		t.Fatalf("defined_values = %#v, want []", decoded["defined_values"])
	}
	for _, k := range []string{"id", "key", "display_name", "strictness", "created_at", "updated_at", "user_visible", "archived_at"} {
		if _, ok := decoded[k]; !ok {
			t.Errorf("missing %q in %s", k, out)
		}
	}
	if !Balancing.Valid() || !NonBalancing.Valid() || Strictness("STRICT").Valid() {
		t.Error("Strictness.Valid is wrong")
	}
}
