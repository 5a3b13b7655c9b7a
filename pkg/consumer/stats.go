package consumer

import (
	"cmp"
	"slices"
	"sync"
	"time"
)

// Stats is what a consumer has done, per topic, for metrics: how far
// behind it is (Lag: messages published but not processed yet, summed over
// the partitions it reads) and how fresh what it applied is. It is safe
// for concurrent use; give one to Config.Stats.
type Stats struct {
	mu     sync.Mutex
	topics map[string]*topicStats
}

type topicStats struct {
	applied, deadLettered int64
	lastEventTime         time.Time // the CloudEvents time of the last applied event
	lastAppliedAt         time.Time // when it was applied
	lag                   map[int]int64
}

// TopicStats is one topic's figures.
type TopicStats struct {
	Topic         string
	Applied       int64 // events applied (duplicates skipped by the inbox included)
	DeadLettered  int64
	Lag           int64 // messages behind the partitions' high watermarks, as of the last message read
	LastEventTime time.Time
	LastAppliedAt time.Time
}

// NewStats makes an empty Stats.
func NewStats() *Stats { return &Stats{topics: map[string]*topicStats{}} }

func (s *Stats) topic(name string) *topicStats {
	t, ok := s.topics[name]
	if !ok {
		t = &topicStats{lag: map[int]int64{}}
		s.topics[name] = t
	}
	return t
}

// processed records a message of topic/partition at offset, the partition
// then ending at highWaterMark, applied (or dead-lettered) at now.
func (s *Stats) processed(topic string, partition int, offset, highWaterMark int64, applied bool, eventTime, now time.Time) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.topic(topic)
	t.lag[partition] = max(highWaterMark-offset-1, 0)
	if !applied {
		t.deadLettered++
		return
	}
	t.applied++
	if eventTime.After(t.lastEventTime) {
		t.lastEventTime = eventTime
	}
	t.lastAppliedAt = now
}

// Snapshot is every topic's figures, by topic name.
func (s *Stats) Snapshot() []TopicStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]TopicStats, 0, len(s.topics))
	for name, t := range s.topics {
		ts := TopicStats{Topic: name, Applied: t.applied, DeadLettered: t.deadLettered,
			LastEventTime: t.lastEventTime, LastAppliedAt: t.lastAppliedAt}
		for _, l := range t.lag {
			ts.Lag += l
		}
		out = append(out, ts)
	}
	slices.SortFunc(out, func(a, b TopicStats) int { return cmp.Compare(a.Topic, b.Topic) })
	return out
}
