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

// KeyRingConfig configures a KeyRing.
type KeyRingConfig struct {
	Issuer      string
	Rotation    time.Duration // age after which a new key is made
	MaxLifetime time.Duration // longest token lifetime
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
	signer *authn.Signer
	jwks   []byte
	public map[string]ed25519.PublicKey
}

// NewKeyRing makes an empty ring; call Sync before use.
func NewKeyRing(store KeyStore, c *signing.Cipher, cfg KeyRingConfig, logger *slog.Logger) *KeyRing {
	if cfg.ReloadInterval <= 0 {
		cfg.ReloadInterval = 5 * time.Second
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &KeyRing{store: store, cipher: c, cfg: cfg, log: logger, now: cfg.Now}
}

// Sync creates a key when none is fresh enough, retires keys no token can
// need any more, and reloads the ring.
func (k *KeyRing) Sync(ctx context.Context) error {
	err := k.store.RotateSigningKeys(ctx, func(keys []signing.StoredKey) (*signing.StoredKey, []string, error) {
		now := k.now().UTC()
		plan := signing.MakePlan(keys, now, k.cfg.Rotation, k.cfg.MaxLifetime)
		if !plan.NeedNew {
			return nil, plan.Retire, nil
		}
		kid, err := uuid.NewV7()
		if err != nil {
			return nil, nil, err
		}
		nk, err := signing.NewKey(k.cipher, kid.String(), now)
		if err != nil {
			return nil, nil, err
		}
		k.log.Info("created signing key", slog.String("kid", nk.KID))
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
	plan := signing.MakePlan(keys, k.now().UTC(), k.cfg.Rotation, k.cfg.MaxLifetime)
	if plan.Current == nil {
		return errors.New("no signing key")
	}
	priv, err := k.cipher.Open(plan.Current.KID, plan.Current.PrivateEnc)
	if err != nil {
		return err
	}
	signer, err := authn.NewSigner(k.cfg.Issuer, plan.Current.KID, priv)
	if err != nil {
		return err
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
	k.snap.Store(&keySnapshot{signer: signer, jwks: doc, public: public})
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

// Signer is the signer of the current key.
func (k *KeyRing) Signer() (*authn.Signer, error) {
	s, err := k.snapshot()
	if err != nil {
		return nil, err
	}
	return s.signer, nil
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
