// Package exportfiles keeps the files of a service's exports (CSV, XLSX) in
// object storage for a limited time, and makes each one once:
//
//   - a file is stored under a key derived from everything that determines
//     its content (Fingerprint of the export's kind, its normalised query
//     and a version of the business's data that changes whenever the data
//     it reads changes): exports/<service>/<business>/<kind>/<fingerprint>.<ext>;
//   - an identical request made within Policy.ReuseWindow of the stored
//     file is answered with a new pre-signed URL to that file instead of a
//     new file; otherwise the file is made again and replaces it;
//   - files expire after Policy.TTL: Sweep (run hourly by RunSweeper)
//     deletes older ones, and no pre-signed URL is made to outlive its file.
//
// Receipts, documents and anything else outside the service's export
// prefixes are never touched.
package exportfiles

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/google/uuid"

	"github.com/acctsuite/acct/pkg/storage"
)

// Prefix starts the key of every export file.
const Prefix = "exports/"

// Policy is the EXPORT_* block of an exporting service's configuration.
type Policy struct {
	// TTL is how long an export file is kept after it was made; 0 keeps
	// files forever (no sweep).
	TTL time.Duration `env:"EXPORT_TTL" envDefault:"24h"`
	// ReuseWindow is how long after a file was made an identical export
	// request is answered with it; 0 makes a new file for every request.
	ReuseWindow time.Duration `env:"EXPORT_REUSE_WINDOW" envDefault:"5m"`
	// LifecycleRule, with S3 storage, also has the bucket expire the
	// service's export files by itself (a lifecycle rule on its prefix,
	// after TTL rounded up to whole days), so they go even while no
	// replica runs its sweeper. The credentials then need
	// s3:GetLifecycleConfiguration and s3:PutLifecycleConfiguration.
	LifecycleRule bool `env:"EXPORT_LIFECYCLE_RULE" envDefault:"false"`
}

// MinTTL is the shortest TTL other than 0: room for a pre-signed URL of a
// few minutes after URLMargin.
const MinTTL = 5 * time.Minute

// URLMargin is how long before its file expires a pre-signed URL ends, so
// that clock differences between the replica that signs and the one that
// sweeps never leave a live URL to a deleted file.
const URLMargin = time.Minute

// MinReuseURLExpiry is the least validity a URL to a reused file must
// have: a file closer to its expiry is made again instead.
const MinReuseURLExpiry = 5 * time.Minute

// Validate refuses negative durations, a TTL below MinTTL (other than 0)
// and a reuse window not shorter than the TTL.
func (p Policy) Validate() error {
	switch {
	case p.TTL < 0:
		return fmt.Errorf("EXPORT_TTL %s: must not be negative (0 keeps export files forever)", p.TTL)
	case p.ReuseWindow < 0:
		return fmt.Errorf("EXPORT_REUSE_WINDOW %s: must not be negative (0 never reuses an export file)", p.ReuseWindow)
	case p.TTL > 0 && p.TTL < MinTTL:
		return fmt.Errorf("EXPORT_TTL %s: must be 0 (keep forever) or at least %s", p.TTL, MinTTL)
	case p.TTL > 0 && p.ReuseWindow >= p.TTL:
		return fmt.Errorf("EXPORT_REUSE_WINDOW %s: must be shorter than EXPORT_TTL %s", p.ReuseWindow, p.TTL)
	}
	return nil
}

// Legacy is a set of export files of an older key layout, expired with the
// same TTL: the keys under Prefix that Match accepts (every one when nil).
type Legacy struct {
	Prefix string
	Match  func(key string) bool
}

// Options configures Files.
type Options struct {
	// Service names the service in its keys (exports/<service>/...).
	Service string
	Policy  Policy
	// URLExpiry is the longest validity of a pre-signed URL
	// (storage.DefaultPresignExpiry when 0); URLs to files near their
	// expiry get less.
	URLExpiry time.Duration
	// Legacy are older export keys the sweep deletes too.
	Legacy []Legacy
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// Files are one service's export files in a store.
type Files struct {
	store storage.Store
	opts  Options
}

// New makes the export files of opts.Service in store.
func New(store storage.Store, opts Options) *Files {
	if opts.URLExpiry == 0 {
		opts.URLExpiry = storage.DefaultPresignExpiry
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Files{store: store, opts: opts}
}

// Policy is the files' policy.
func (f *Files) Policy() Policy { return f.opts.Policy }

// Request is one export file.
type Request struct {
	BusinessID uuid.UUID
	// Kind names the export in keys ("transactions", "ledger-entries"):
	// one key segment.
	Kind string
	// Ext is the file's extension ("csv", "xlsx").
	Ext string
	// Query is the export's normalised query: what the request asks for
	// once parsed and defaulted (dates resolved, values sorted), JSON
	// encoded into the fingerprint.
	Query any
	// Version is the version of the business's data the export reads:
	// anything, JSON encoded, that changes whenever that data changes.
	Version any
	// FileName and ContentType are the download's (storage.PresignOptions).
	FileName    string
	ContentType string
}

// File is a stored export file with a new pre-signed URL.
type File struct {
	Key string
	// ID identifies the file: the same for every answer about the same
	// stored content.
	ID  uuid.UUID
	URL string
	// Created is when the file was made (for a reused file, when it was
	// stored), to the second: what S3 keeps, and a filesystem's
	// modification time may lag the clock by a few milliseconds.
	Created time.Time
	// Reused is true when the file was already stored.
	Reused bool
}

// Fingerprint is the hex SHA-256 of parts, encoded together as one JSON
// array: equal parts, equal fingerprint. Maps are encoded with sorted keys,
// so only slices carry an order.
func Fingerprint(parts ...any) (string, error) {
	b, err := json.Marshal(parts)
	if err != nil {
		return "", fmt.Errorf("export fingerprint: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// ServicePrefix is the prefix of the service's export files.
func (f *Files) ServicePrefix() string { return Prefix + f.opts.Service + "/" }

// Key is where req's file is stored.
func (f *Files) Key(req Request) (string, error) {
	fp, err := Fingerprint(req.Kind, req.Ext, req.Query, req.Version)
	if err != nil {
		return "", err
	}
	key := fmt.Sprintf("%s%s/%s/%s.%s", f.ServicePrefix(), req.BusinessID, req.Kind, fp, req.Ext)
	if err := storage.ValidateKey(key); err != nil {
		return "", fmt.Errorf("export key: %w", err)
	}
	return key, nil
}

// fileNamespace derives a File's ID from its key.
var fileNamespace = uuid.MustParse("6f2b0c4e-5a3d-4e8f-9c1b-2d7e8a9f0b13")

// Serve returns req's file with a new pre-signed URL: the file stored under
// its key when it was made within the reuse window (and has enough life
// left for a useful URL), else a new one that put stores under the key,
// replacing any. Two identical requests at the same moment may both make
// the file: they store the same content, the last one stays.
func (f *Files) Serve(ctx context.Context, req Request, put func(ctx context.Context, key string) error) (File, error) {
	key, err := f.Key(req)
	if err != nil {
		return File{}, err
	}
	out := File{Key: key, ID: uuid.NewSHA1(fileNamespace, []byte(key))}
	if made, ok := f.reusable(ctx, key); ok {
		out.Created, out.Reused = made, true
	} else {
		// Taken before the upload (and rounded down): the stored file's
		// modification time is later, so a URL computed from this never
		// outlives it.
		out.Created = f.opts.Now().UTC().Truncate(time.Second)
		if err := put(ctx, key); err != nil {
			return File{}, err
		}
	}
	opts := storage.PresignOptions{Filename: req.FileName, ContentType: req.ContentType}
	if out.URL, err = f.store.PresignGet(ctx, key, f.URLExpiry(out.Created), opts); err != nil {
		return File{}, fmt.Errorf("presign export: %w", err)
	}
	return out, nil
}

// reusable reports whether the file under key was made within the reuse
// window and lives long enough for a useful URL, and when it was made. A
// storage error counts as "no": the file is made again (and the upload
// reports a storage that is down).
func (f *Files) reusable(ctx context.Context, key string) (time.Time, bool) {
	window := f.opts.Policy.ReuseWindow
	if window <= 0 {
		return time.Time{}, false
	}
	o, err := f.store.Stat(ctx, key)
	if err != nil {
		return time.Time{}, false
	}
	made := o.Modified.UTC().Truncate(time.Second)
	if f.opts.Now().Sub(made) >= window || f.URLExpiry(made) < min(MinReuseURLExpiry, f.opts.URLExpiry) {
		return time.Time{}, false
	}
	return made, true
}

// URLExpiry is the validity of a URL made now to a file made at made:
// Options.URLExpiry, cut (in whole seconds) so that it ends URLMargin
// before the file expires.
func (f *Files) URLExpiry(made time.Time) time.Duration {
	e := f.opts.URLExpiry
	if ttl := f.opts.Policy.TTL; ttl > 0 {
		e = min(e, made.Add(ttl-URLMargin).Sub(f.opts.Now()))
	}
	return max(e.Truncate(time.Second), time.Second)
}

// sweepRounds bounds the storage.SweepExpired runs of one Sweep per
// prefix: a backlog larger than that many limits waits for the next sweep.
const sweepRounds = 10

// Sweep deletes the service's export files, and the legacy ones, made
// more than the TTL ago, and returns how many it deleted (nothing with a
// TTL of 0). Only keys under the service's export prefix and the legacy
// prefixes (as their Match allows) are ever deleted.
func (f *Files) Sweep(ctx context.Context) (int, error) {
	ttl := f.opts.Policy.TTL
	if ttl <= 0 {
		return 0, nil
	}
	cutoff := f.opts.Now().Add(-ttl)
	sets := append([]Legacy{{Prefix: f.ServicePrefix()}}, f.opts.Legacy...)
	total := 0
	var errs []error
	for _, set := range sets {
		for range sweepRounds {
			n, err := storage.SweepExpired(ctx, f.store, set.Prefix, cutoff, storage.SweepOptions{Match: set.Match})
			total += n
			if err != nil {
				errs = append(errs, err)
			}
			if err != nil || n < storage.DefaultSweepLimit {
				break
			}
		}
	}
	return total, errors.Join(errs...)
}

// LifecycleRuleID names the service's lifecycle rule in its bucket.
func (f *Files) LifecycleRuleID() string { return "acct-exports-" + f.opts.Service }

// LifecycleDays is the TTL in whole days, rounded up: S3 counts a rule's
// days from a file's creation and deletes it at the next midnight UTC
// after, so a file never goes before its TTL (and its URLs) ends.
func LifecycleDays(ttl time.Duration) int32 {
	const day = 24 * time.Hour
	return int32((ttl + day - 1) / day)
}

// EnsureLifecycleRule has the store expire the service's export files
// itself after LifecycleDays of the TTL (storage.ExpiryRuler: S3), and
// returns those days. It fails for a store that cannot (the filesystem
// backend: the sweeper alone expires its files) and with a TTL of 0.
func (f *Files) EnsureLifecycleRule(ctx context.Context) (int32, error) {
	if f.opts.Policy.TTL <= 0 {
		return 0, errors.New("exportfiles: EXPORT_TTL is 0: export files are kept forever")
	}
	ruler, ok := f.store.(storage.ExpiryRuler)
	if !ok {
		return 0, errors.New("exportfiles: EXPORT_LIFECYCLE_RULE needs S3 storage (STORAGE_BACKEND=s3)")
	}
	days := LifecycleDays(f.opts.Policy.TTL)
	return days, ruler.EnsureExpiry(ctx, f.LifecycleRuleID(), f.ServicePrefix(), days)
}

// Sweeper timing: the first sweep shortly after start (not at once, so a
// rollout's new replicas do not all list the bucket together with their
// start-up work), then hourly.
const (
	SweepDelay    = time.Minute
	SweepInterval = time.Hour
)

// RunSweeper runs Sweep after SweepDelay, then every SweepInterval, until
// ctx ends, logging each run. With a TTL of 0 it returns at once.
func (f *Files) RunSweeper(ctx context.Context, log *slog.Logger) {
	if f.opts.Policy.TTL <= 0 {
		return
	}
	if f.opts.Policy.LifecycleRule {
		if days, err := f.EnsureLifecycleRule(ctx); err != nil {
			log.Warn("export lifecycle rule not set: the sweeper alone expires export files", slog.Any("error", err))
		} else {
			log.Info("export lifecycle rule set", slog.String("rule", f.LifecycleRuleID()),
				slog.String("prefix", f.ServicePrefix()), slog.Int("days", int(days)))
		}
	}
	wait := time.NewTimer(SweepDelay)
	defer wait.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-wait.C:
		}
		n, err := f.Sweep(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			log.Warn("export sweep failed", slog.Int("deleted", n), slog.Duration("ttl", f.opts.Policy.TTL), slog.Any("error", err))
		case err == nil:
			log.Info("export sweep", slog.Int("deleted", n), slog.Duration("ttl", f.opts.Policy.TTL),
				slog.String("prefix", f.ServicePrefix()))
		}
		wait.Reset(SweepInterval)
	}
}
