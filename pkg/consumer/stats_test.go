package consumer

import (
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	var none *Stats
	none.processed("t", 0, 1, 2, true, time.Now(), time.Now()) // a consumer without stats records nothing
	s := NewStats()
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	s.processed("b", 0, 4, 10, true, t0, t0)                 // 5 more to read on partition 0
	s.processed("b", 1, 0, 3, true, t0.Add(-time.Hour), t0)  // an older event, 2 more on partition 1
	s.processed("b", 0, 9, 10, false, t0.Add(time.Hour), t0) // dead-lettered: not fresher, partition 0 caught up
	s.processed("a", 2, 0, 1, true, t0.Add(time.Minute), t0) // another topic
	got := s.Snapshot()
	if len(got) != 2 || got[0].Topic != "a" || got[1].Topic != "b" {
		t.Fatalf("snapshot = %+v", got)
	}
	b := got[1]
	if b.Applied != 2 || b.DeadLettered != 1 || b.Lag != 2 || !b.LastEventTime.Equal(t0) || !b.LastAppliedAt.Equal(t0) {
		t.Fatalf("topic b = %+v", b)
	}
	if a := got[0]; a.Applied != 1 || a.Lag != 0 || !a.LastEventTime.Equal(t0.Add(time.Minute)) {
		t.Fatalf("topic a = %+v", a)
	}
}
