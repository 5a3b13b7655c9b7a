package app

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/webhooksig"
	"github.com/acctsuite/acct/services/webhooks/internal/domain"
)

// RepairInterval is how often a dispatcher looks for pending deliveries
// without a lane.
const RepairInterval = 30 * time.Second

// RecheckDelay is how soon a lane is looked at again when it had no
// delivery to send but one was being enqueued to it (its transaction not
// committed yet).
const RecheckDelay = 25 * time.Millisecond

// RefillWait is how long a full dispatcher waits, once a slot is free,
// for more to free before it claims again.
const RefillWait = 10 * time.Millisecond

// DispatchOptions bound the dispatcher.
type DispatchOptions struct {
	// Concurrency is how many deliveries this replica sends at once
	// (default 64); PerEndpoint how many of one endpoint's lanes all
	// replicas lease at once (default 8): a slow endpoint holds only its
	// own share.
	Concurrency int
	PerEndpoint int
	// Lease is how long a claimed lane stays this replica's (default 2
	// min, well over the 15 s timeout); a replica that dies mid-delivery
	// loses it and another sends again (the same webhook-id).
	Lease time.Duration
	// Poll is how often due lanes are looked for without a wake-up
	// (default 250 ms).
	Poll time.Duration
	// Wake signals that deliveries were enqueued (a database
	// notification); nil: polling alone.
	Wake <-chan struct{}
	// Timeout bounds an attempt (default 15 s): a run starts no attempt
	// that could outlast its lease.
	Timeout time.Duration
	// Run is how many of a lane's due deliveries one claim takes at most
	// (default 200): they go one after another, each once the one before
	// it was delivered, so a lane that fell behind catches up without a
	// claim and a recording per delivery. Each claim of a lane and its
	// release cost PostgreSQL about as much as tens of deliveries: a
	// backlog of 20,000 over 128 lanes drained with a fifth less of its
	// CPU per delivery at 200 than at 50 or 100.
	Run int
}

func (o DispatchOptions) withDefaults() DispatchOptions {
	if o.Concurrency <= 0 {
		o.Concurrency = 64
	}
	if o.PerEndpoint <= 0 {
		o.PerEndpoint = 8
	}
	if o.PerEndpoint > o.Concurrency {
		o.PerEndpoint = o.Concurrency
	}
	if o.Lease <= 0 {
		o.Lease = 2 * time.Minute
	}
	if o.Poll <= 0 {
		o.Poll = 250 * time.Millisecond
	}
	if o.Run <= 0 {
		o.Run = 200
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Second
	}
	return o
}

// MaxRecordBatch is how many attempts are recorded in one transaction
// at most.
const MaxRecordBatch = 256

// Dispatch sends due deliveries until ctx ends, then waits for the
// attempts under way and records them. What came of each attempt goes to
// one recorder, which writes whatever has gathered in one transaction: a
// delivery's slot is free once its outcome is queued, while its lane
// stays leased until the outcome is written (so a lane's next delivery
// never overtakes it).
func (w *Webhooks) Dispatch(ctx context.Context, o DispatchOptions) {
	o = o.withDefaults()
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		inflight int
		done     = make(chan struct{}, o.Concurrency)
		recs     = make(chan Recorded, 2*o.Concurrency)
		recorded = make(chan struct{})
		// moved: outcomes were written, their lanes released (a lane's
		// next delivery may be due).
		moved = make(chan struct{}, 1)
	)
	go func() {
		defer close(recorded)
		w.recorder(context.WithoutCancel(ctx), recs, moved)
	}()
	defer func() {
		wg.Wait()
		close(recs)
		<-recorded
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	nextRepair := time.Now()
	for {
		if time.Now().After(nextRepair) {
			nextRepair = time.Now().Add(RepairInterval)
			if n, err := w.store.RepairLanes(ctx, w.now()); err != nil && ctx.Err() == nil {
				w.log.Error("webhooks: repair lanes", "error", err)
			} else if n > 0 {
				w.log.Warn("webhooks: pending deliveries had lost their lane; repaired", "lanes", n)
			}
		}
		mu.Lock()
		free := o.Concurrency - inflight
		mu.Unlock()
		claimed, poll := 0, o.Poll
		if free > 0 {
			now := w.now()
			works, recheck, err := w.store.Claim(ctx, now, now.Add(o.Lease), free, o.PerEndpoint, o.Run)
			if recheck {
				poll = min(poll, RecheckDelay)
			}
			if err != nil && ctx.Err() == nil {
				w.log.Error("webhooks: claim due deliveries", "error", err)
			}
			// Each lane's run takes one slot until its last outcome is
			// queued; it starts no attempt that could outlast its lease
			// (an attempt lasts the timeout at most; 2 s to record it).
			stopBy := now.Add(o.Lease - o.Timeout - 2*time.Second)
			for _, run := range runs(works) {
				claimed++
				mu.Lock()
				inflight++
				mu.Unlock()
				wg.Add(1)
				go func() {
					defer wg.Done()
					w.sendRun(ctx, run, stopBy, recs)
					mu.Lock()
					inflight--
					mu.Unlock()
					select {
					case done <- struct{}{}:
					default:
					}
				}()
			}
		}
		if claimed > 0 && claimed < free {
			continue // there may be more due
		}
		// Full, or nothing due: wait for a slot to free, new deliveries or
		// the poll; after a slot frees, let more free (a quarter of them, or
		// RefillWait) before claiming again: one claim per several
		// deliveries, not one each.
		timer.Reset(poll)
		select {
		case <-ctx.Done():
			return
		case <-o.Wake:
			continue
		case <-moved:
			continue
		case <-timer.C:
			continue
		case <-done:
		}
		refill := time.NewTimer(RefillWait)
	gather:
		for {
			mu.Lock()
			free := o.Concurrency - inflight
			mu.Unlock()
			if free >= max(1, o.Concurrency/4) {
				break
			}
			select {
			case <-ctx.Done():
				refill.Stop()
				return
			case <-done:
			case <-o.Wake:
				break gather
			case <-moved:
				break gather
			case <-refill.C:
				break gather
			}
		}
		refill.Stop()
	}
}

// runs splits works, grouped by lane, into each lane's run.
func runs(works []Work) [][]Work {
	var out [][]Work
	for i := 0; i < len(works); {
		j := i + 1
		for j < len(works) && works[j].Lane == works[i].Lane {
			j++
		}
		out = append(out, works[i:j:j])
		i = j
	}
	return out
}

// sendRun attempts a lane's run in order, each once the one before it
// was delivered, and queues every outcome to recs; the last queued (the
// run's end, an outcome other than delivered, a shutdown, or stopBy
// passed) releases the lane. A delivery not attempted stays pending,
// the lane's head from then on.
func (w *Webhooks) sendRun(ctx context.Context, run []Work, stopBy time.Time, recs chan<- Recorded) {
	for i, wk := range run {
		r := w.attempt(context.WithoutCancel(ctx), wk)
		r.Holds = r.Status == domain.StatusDelivered && i+1 < len(run) && ctx.Err() == nil && w.now().Before(stopBy)
		recs <- r
		if !r.Holds {
			return
		}
	}
}

// recorder writes the outcomes recs brings, as many at once as have
// gathered (up to MaxRecordBatch), until recs is closed and drained;
// moved is signalled after each write.
func (w *Webhooks) recorder(ctx context.Context, recs <-chan Recorded, moved chan<- struct{}) {
	batch := make([]Recorded, 0, MaxRecordBatch)
	for r := range recs {
		batch = append(batch[:0], r)
	gather:
		for len(batch) < MaxRecordBatch {
			select {
			case r, ok := <-recs:
				if !ok {
					break gather
				}
				batch = append(batch, r)
			default:
				break gather
			}
		}
		w.record(ctx, batch)
		select {
		case moved <- struct{}{}:
		default:
		}
	}
}

// record writes batch; when the batch cannot be written, each record on
// its own (one bad record does not cost the others theirs). A record
// that cannot be written is sent again once its lease runs out (the same
// webhook-id: at least once). Then each endpoint's health follows its
// latest outcome.
func (w *Webhooks) record(ctx context.Context, batch []Recorded) {
	now := w.now()
	written := batch
	if err := w.store.RecordAll(ctx, batch, now); err != nil {
		w.log.Error("webhooks: record attempts; recording them one by one", "attempts", len(batch), "error", err)
		written = nil
		for _, r := range batch {
			if err := w.store.RecordAll(ctx, []Recorded{r}, now); err != nil {
				w.log.Error("webhooks: record attempt", "delivery", r.Work.Delivery.ID, "error", err)
				continue
			}
			written = append(written, r)
		}
	}
	latest := map[uuid.UUID]Recorded{}
	var order []uuid.UUID
	for _, r := range written {
		id := r.Work.Endpoint.ID
		if _, ok := latest[id]; !ok {
			order = append(order, id)
		}
		latest[id] = r
	}
	for _, id := range order {
		r := latest[id]
		e := r.Work.Endpoint
		if r.Status == domain.StatusDelivered {
			if e.FailingSince != nil {
				if err := w.store.EndpointSucceeded(ctx, e.ID); err != nil {
					w.log.Error("webhooks: endpoint succeeded", "endpoint", e.ID, "error", err)
				}
			}
			continue
		}
		if err := w.endpointFailed(ctx, e, now); err != nil {
			w.log.Error("webhooks: endpoint failed", "endpoint", e.ID, "error", err)
		}
	}
}

// attempt sends w's head delivery once: what came of it.
func (w *Webhooks) attempt(ctx context.Context, wk Work) Recorded {
	e, d := wk.Endpoint, wk.Delivery
	start := w.now()
	id := d.MessageID.String()
	sig, err := webhooksig.SignatureHeader(e.SigningSecrets(start), id, start, wk.Body)
	a := domain.Attempt{ID: newID(), DeliveryID: d.ID, Number: d.Attempts + 1, AttemptedAt: start}
	var status *int
	if err != nil {
		msg := "signing: " + err.Error()
		a.Error = &msg
	} else {
		headers := map[string]string{
			"webhook-id":        id,
			"webhook-timestamp": strconv.FormatInt(start.Unix(), 10),
			"webhook-signature": sig,
		}
		res, err := w.send.Post(ctx, e.URL, headers, wk.Body)
		if err != nil {
			msg := sendError(err)
			a.Error = &msg
			a.LatencyMS = w.now().Sub(start).Milliseconds()
		} else {
			code := res.StatusCode
			status = &code
			a.StatusCode = status
			a.LatencyMS = res.Latency.Milliseconds()
			a.Response = printable(res.Body)
			if !domain.Delivered(code) {
				msg := "answered " + strconv.Itoa(code) + ", not 2xx"
				a.Error = &msg
			}
		}
	}
	end := w.now()
	delivered, next := w.schedule.Outcome(a.Number, status, end)
	a.NextRetryAt = next
	outcome, observed := domain.StatusPending, "retry"
	switch {
	case delivered:
		outcome, observed = domain.StatusDelivered, domain.StatusDelivered
	case next == nil:
		outcome, observed = domain.StatusFailed, domain.StatusFailed
	}
	w.observe(observed, end.Sub(start))
	return Recorded{Work: wk, Attempt: a, Status: outcome}
}

// endpointFailed notes a failed attempt of endpoint e at now: after 5
// days without a success it is disabled, its pending deliveries fail and
// the platform's other endpoints get Endpoint.disabled.
func (w *Webhooks) endpointFailed(ctx context.Context, e domain.Endpoint, now time.Time) error {
	if e.FailingSince != nil && now.Sub(*e.FailingSince) < domain.DisableAfter {
		return nil // failing already, not for long enough: nothing to write
	}
	return w.uow.Do(ctx, func(ctx context.Context) error {
		cur, ok, err := w.store.EndpointByID(ctx, e.ID, true)
		if err != nil || !ok || cur.Disabled {
			return err
		}
		next, disable := cur.Failed(now)
		if next.FailingSince == cur.FailingSince && !disable {
			return nil
		}
		if err := w.store.UpdateEndpoint(ctx, next); err != nil {
			return err
		}
		if !disable {
			return nil
		}
		w.log.Warn("webhooks: endpoint disabled after failing for 5 days", "endpoint", e.ID, "client", e.ClientID)
		if _, err := w.store.FailPending(ctx, e.ID, "the endpoint was disabled: "+domain.DisabledFailing, now); err != nil {
			return err
		}
		ev := domain.Event{ID: newID(), Type: domain.TypeEndpointDisabled, CreatedAt: now, Data: domain.EventData{EntityID: e.ID.String()}}
		return w.fanOut(ctx, []outgoing{{clientID: e.ClientID, ev: ev}})
	})
}

// sendError is what a platform is told of a delivery that got no answer.
func sendError(err error) string {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer within the 15 s timeout"
	case errors.Is(err, ErrURLRefused):
		return err.Error()
	}
	msg := err.Error()
	if len(msg) > 300 {
		msg = msg[:300]
	}
	return msg
}

// printable is an answer's first bytes as text (invalid UTF-8 replaced).
func printable(b []byte) string {
	if len(b) > domain.MaxResponseBytes {
		b = b[:domain.MaxResponseBytes]
	}
	s := strings.ToValidUTF8(string(b), "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	if !utf8.ValidString(s) {
		return ""
	}
	return s
}
