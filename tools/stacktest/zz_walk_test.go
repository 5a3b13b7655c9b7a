package stacktest

import (
	"flag"
	"slices"
	"strings"
	"testing"
)

// TestClientShapesWalk runs last (its file sorts last; the suite runs
// sequentially): it makes the calls no other test makes (walkCalls); every
// answer of the suite was checked against client-shapes.md as it came (see
// observeShape; a null where a TypeScript-typed shape has a value fails
// too), and when the whole suite ran, every call client-shapes.md
// lists that the gateway serves must have been walked, with a valid answer.
func TestClientShapesWalk(t *testing.T) {
	c, err := catalog()
	if err != nil {
		t.Fatal(err)
	}
	walkCalls(t)
	walkMu.Lock()
	fails := append([]string(nil), shapeFails...)
	walkMu.Unlock()
	for _, f := range fails {
		t.Errorf("client shape: %s", f)
	}
	walkMu.Lock()
	var nulls []string
	for k := range typedNulls {
		nulls = append(nulls, k)
	}
	walkMu.Unlock()
	if len(nulls) > 0 {
		slices.Sort(nulls)
		t.Errorf("%d fields of TypeScript-typed shapes (not decoded at run time, read as typed) answered null where the type has a value:\n  %s",
			len(nulls), strings.Join(nulls, "\n  "))
	}
	unwalked, unserved := walkReport(t, c)
	if len(unserved) > 0 {
		t.Logf("%d calls client-shapes.md lists are not served by the suite:\n  %s", len(unserved), strings.Join(unserved, "\n  "))
	}
	if f := flag.Lookup("test.run"); f != nil && f.Value.String() != "" {
		t.Logf("a partial run (-run %s): %d served calls not walked", f.Value, len(unwalked))
		return
	}
	if len(unwalked) > 0 {
		t.Errorf("%d calls the gateway serves were walked by no test:\n  %s", len(unwalked), strings.Join(unwalked, "\n  "))
	}
}
