package app

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/acctsuite/acct/pkg/apperr"
	"github.com/acctsuite/acct/pkg/authn"
	"github.com/acctsuite/acct/services/auth-tokens/internal/signing"
	"github.com/google/uuid"
)

// KeyStore persists signing keys.
type KeyStore interface {
	ListSigningKeys(ctx context.Context) ([]signing.StoredKey, error)
	// RotateSigningKeys runs fn on the current keys while holding a lock
	// that serialises replicas, then inserts and retires what fn returns.
	RotateSigningKeys(ctx context.Context, fn func(keys []signing.StoredKey) (insert *signing.StoredKey, retire []string, err error)) error
}

// DefaultPublishLead is how long a new signing key is published before it
// signs: above the gateway's JWKS refresh (5 min by default, see
// authn.VerifierOptions.RefreshInterval) plus the JWKS max-age (60 s) plus
// the replicas' key sync (1 min), so no verifier meets an unknown kid.
const DefaultPublishLead = 10 * time.Minute

// KeyRingConfig configures a KeyRing.
type KeyRingConfig struct {
	Issuer      string
	Rotation    time.Duration // how long a key signs before its successor takes over
	MaxLifetime time.Duration // longest token lifetime
	// PublishLead is how long a new key is in the JWKS before it signs;
	// DefaultPublishLead when 0.
	PublishLead time.Duration
	// ReloadInterval bounds reloads triggered by unknown kids (another
	// replica rotated); default 5s.
	ReloadInterval time.Duration
	Now            func() time.Time // clock; default time.Now
}

// KeyRing holds the signing keys in memory: the signer, the JWKS document and
// the public keys by kid (it is the service's own authn.KeySource, so
// verifying our own tokens needs no HTTP round trip).
type KeyRing struct {
	store  KeyStore
	cipher *signing.Cipher
	cfg    KeyRingConfig
	log    *slog.Logger
	now    func() time.Time

	snap       atomic.Pointer[keySnapshot]
	reloadMu   sync.Mutex
	lastReload time.Time
}

type keySnapshot struct {
	// signers are the current key's then the pending keys', by activation:
	// a pending key takes over at its activation even before the next sync.
	signers []timedSigner
	jwks    []byte
	public  map[string]ed25519.PublicKey
}

type timedSigner struct {
	from   time.Time
	signer *authn.Signer
}

// NewKeyRing makes an empty ring; call Sync before use.
func NewKeyRing(store KeyStore, c *signing.Cipher, cfg KeyRingConfig, logger *slog.Logger) *KeyRing {
	if cfg.ReloadInterval <= 0 {
		cfg.ReloadInterval = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.PublishLead <= 0 {
		cfg.PublishLead = DefaultPublishLead
	}
	return &KeyRing{store: store, cipher: c, cfg: cfg, log: logger, now: cfg.Now}
}

func (k *KeyRing) policy() signing.Policy {
	return signing.Policy{Rotation: k.cfg.Rotation, MaxLifetime: k.cfg.MaxLifetime, PublishLead: k.cfg.PublishLead}
}

// Sync creates the successor key when the current one is due (pending for
// the publish lead; at once when there is no key), retires keys no token can
// need any more, and reloads the ring.
func (k *KeyRing) Sync(ctx context.Context) error {
	err := k.store.RotateSigningKeys(ctx, func(keys []signing.StoredKey) (*signing.StoredKey, []string, error) {
		now := k.now().UTC()
		plan := signing.MakePlan(keys, now, k.policy())
		if !plan.NeedNew {
			return nil, plan.Retire, nil
		}
		kid, err := uuid.NewV7()
		if err != nil {
			return nil, nil, err
		}
		nk, err := signing.NewKey(k.cipher, kid.String(), now, plan.NewActivatesAt)
		if err != nil {
			return nil, nil, err
		}
		k.log.Info("created signing key", slog.String("kid", nk.KID), slog.Time("activates_at", nk.ActivatesAt))
		// Retirement is judged again next time, against the new key.
		return &nk, nil, nil
	})
	if err != nil {
		return fmt.Errorf("rotate signing keys: %w", err)
	}
	return k.reload(ctx)
}

// reload reads the keys and swaps in a new snapshot.
func (k *KeyRing) reload(ctx context.Context) error {
	keys, err := k.store.ListSigningKeys(ctx)
	if err != nil {
		return fmt.Errorf("list signing keys: %w", err)
	}
	plan := signing.MakePlan(keys, k.now().UTC(), k.policy())
	if plan.Current == nil {
		return errors.New("no signing key")
	}
	signers := make([]timedSigner, 0, 1+len(plan.Pending))
	for _, sk := range append([]signing.StoredKey{*plan.Current}, plan.Pending...) {
		priv, err := k.cipher.Open(sk.KID, sk.PrivateEnc)
		if err != nil {
			return err
		}
		signer, err := authn.NewSigner(k.cfg.Issuer, sk.KID, priv)
		if err != nil {
			return err
		}
		signers = append(signers, timedSigner{from: sk.ActivatesAt, signer: signer.WithClock(k.now)})
	}
	set := authn.JWKS{Keys: make([]authn.JWK, 0, len(plan.Published))}
	public := make(map[string]ed25519.PublicKey, len(plan.Published))
	for _, pk := range plan.Published {
		set.Keys = append(set.Keys, authn.PublicJWK(pk.KID, pk.PublicKey))
		public[pk.KID] = pk.PublicKey
	}
	doc, err := json.Marshal(set)
	if err != nil {
		return err
	}
	k.snap.Store(&keySnapshot{signers: signers, jwks: doc, public: public})
	return nil
}

// Run calls Sync every interval until ctx ends; failures are logged and the
// current keys stay in use.
func (k *KeyRing) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := k.Sync(ctx); err != nil && ctx.Err() == nil {
				k.log.Error("signing key sync failed", slog.Any("error", err))
			}
		}
	}
}

func (k *KeyRing) snapshot() (*keySnapshot, error) {
	s := k.snap.Load()
	if s == nil {
		return nil, apperr.New(apperr.Unavailable, "signing keys not loaded")
	}
	return s, nil
}

// Signer is the signer of the key active now: the latest whose activation
// has come (the first one's when none has: see signing.Plan.Current).
func (k *KeyRing) Signer() (*authn.Signer, error) {
	s, err := k.snapshot()
	if err != nil {
		return nil, err
	}
	now := k.now()
	cur := s.signers[0].signer
	for _, ts := range s.signers[1:] {
		if ts.from.After(now) {
			break
		}
		cur = ts.signer
	}
	return cur, nil
}

// JWKS is the JSON document listing every published key.
func (k *KeyRing) JWKS() ([]byte, error) {
	s, err := k.snapshot()
	if err != nil {
		return nil, err
	}
	return s.jwks, nil
}

// PublicKey implements authn.KeySource. An unknown kid triggers a reload
// (rate limited): another replica may have rotated.
func (k *KeyRing) PublicKey(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	if s := k.snap.Load(); s != nil {
		if pk, ok := s.public[kid]; ok {
			return pk, nil
		}
	}
	k.reloadMu.Lock()
	if k.now().Sub(k.lastReload) >= k.cfg.ReloadInterval {
		k.lastReload = k.now()
		if err := k.reload(ctx); err != nil {
			k.log.Warn("signing key reload failed", slog.Any("error", err))
		}
	}
	k.reloadMu.Unlock()
	s := k.snap.Load()
	if s == nil {
		return nil, authn.ErrKeysUnavailable
	}
	if pk, ok := s.public[kid]; ok {
		return pk, nil
	}
	return nil, authn.ErrUnknownKey
}
