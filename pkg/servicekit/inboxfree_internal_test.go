package servicekit

import (
	"context"
	"slices"
	"testing"

	"github.com/uptrace/bun"

	"github.com/acctsuite/acct/pkg/events"
)

// A topic skips the inbox only when every handler registered for it is
// idempotent: one handler that is not (another ConsumeBatch, a Consume)
// keeps its events in the inbox.
func TestInboxFreeTopicsNeedEveryHandlerIdempotent(t *testing.T) {
	batch := func(context.Context, bun.Tx, []events.Event) error { return nil }
	one := func(context.Context, bun.Tx, events.Event) error { return nil }
	k := &Kit{handlers: map[string][]topicHandler{}}
	k.ConsumeBatchIdempotent("a", batch)
	k.ConsumeBatchIdempotent("b", batch)
	k.ConsumeBatch("b", batch)
	k.ConsumeBatchIdempotent("c", batch)
	k.Consume("c", one)
	k.ConsumeBatch("d", batch)
	k.ConsumeBatchIdempotent("e", batch)
	k.ConsumeBatchIdempotent("e", batch)
	if got, want := k.inboxFreeTopics(), []string{"a", "e"}; !slices.Equal(got, want) {
		t.Errorf("inbox-free topics %v, want %v", got, want)
	}
}
