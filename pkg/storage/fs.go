package storage

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// FSOptions configures an FSStore.
type FSOptions struct {
	// Dir holds the objects; created when missing.
	Dir string
	// PublicBaseURL is where the gateway serving DownloadRoute is reached
	// by clients, e.g. http://127.0.0.1:8080.
	PublicBaseURL string
	// SigningKey signs pre-signed URLs; at least MinSigningKeyLength bytes
	// and the same in the gateway's NewDownloadHandler.
	SigningKey []byte
	// Now is the clock (time.Now when nil); tests move it.
	Now func() time.Time
}

// FSStore keeps objects in a local directory:
//
//	{Dir}/objects/{key}   one file per object: a 512-byte header (JSON:
//	                      content type, size, etag) then the content
//	{Dir}/tmp/            uploads in progress
//
// Keeping the metadata inside the object's own file makes a Put atomic with
// one rename: a reader sees the old object or the new one, content and
// content type together, never a mix or a partial file. Each upload is
// fsynced before the rename and the directory after it, so an acknowledged
// Put survives a crash.
type FSStore struct {
	files  fsObjects
	tmp    string
	base   *url.URL
	signer urlSigner
	now    func() time.Time
}

// NewFS opens (creating if needed) a filesystem store.
func NewFS(opts FSOptions) (*FSStore, error) {
	if opts.Dir == "" {
		return nil, errors.New("storage: fs: directory is required")
	}
	base, err := parseBaseURL(opts.PublicBaseURL)
	if err != nil {
		return nil, fmt.Errorf("storage: fs: public base URL: %w", err)
	}
	signer, err := newURLSigner(opts.SigningKey)
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("storage: fs: %w", err)
	}
	s := &FSStore{
		files:  fsObjects{root: filepath.Join(dir, "objects")},
		tmp:    filepath.Join(dir, "tmp"),
		base:   base,
		signer: signer,
		now:    opts.Now,
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, d := range []string{s.files.root, s.tmp} {
		if err := os.MkdirAll(d, 0o750); err != nil {
			return nil, fmt.Errorf("storage: fs: create %s: %w", d, err)
		}
	}
	s.removeStaleUploads()
	return s, nil
}

// staleUploadAge is when an upload file left in tmp/ is surely abandoned (its
// process died): no upload takes that long.
const staleUploadAge = 24 * time.Hour

// removeStaleUploads deletes uploads abandoned by a crashed process. Best
// effort: a failure only leaves garbage behind.
func (s *FSStore) removeStaleUploads() {
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return
	}
	for _, e := range entries {
		if fi, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), "put-") && s.now().Sub(fi.ModTime()) > staleUploadAge {
			os.Remove(filepath.Join(s.tmp, e.Name()))
		}
	}
}

func parseBaseURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil {
		return nil, err
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%q must be an absolute http(s) URL", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q must not have a query or fragment", raw)
	}
	return u, nil
}

// copyBufferSize is the one buffer a Put streams through.
const copyBufferSize = 256 << 10

// Put implements Store.
func (s *FSStore) Put(ctx context.Context, key string, r io.Reader, size int64, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	ct, err := normalizeContentType(contentType)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(s.tmp, "put-*")
	if err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	committed := false
	defer func() {
		if !committed {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()

	if _, err := tmp.Seek(headerSize, io.SeekStart); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	sum := md5.New()
	n, err := io.CopyBuffer(io.MultiWriter(tmp, sum), ctxReader{ctx, newSizedReader(r, size)}, make([]byte, copyBufferSize))
	if err != nil {
		return fmt.Errorf("storage: put %s: after %d bytes: %w", key, n, err)
	}
	hdr, err := encodeHeader(objectHeader{Version: 1, ContentType: ct, Size: n, ETag: hex.EncodeToString(sum.Sum(nil))})
	if err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	if _, err := tmp.WriteAt(hdr, 0); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("storage: put %s: sync: %w", key, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	if err := s.files.commit(tmp.Name(), key); err != nil {
		return fmt.Errorf("storage: put %s: %w", key, err)
	}
	committed = true
	return nil
}

// Get implements Store. The reader is the object's file, positioned at
// the content.
func (s *FSStore) Get(ctx context.Context, key string) (io.ReadCloser, Object, error) {
	if err := ValidateKey(key); err != nil {
		return nil, Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return nil, Object{}, err
	}
	f, obj, err := s.files.open(key)
	if err != nil {
		return nil, Object{}, fmt.Errorf("storage: get %s: %w", key, err)
	}
	return f, obj, nil
}

// Delete implements Store. Emptied parent directories are removed too.
func (s *FSStore) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	p := s.files.path(key)
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		return nil // "a" when only "a/b" exists: no such object
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("storage: delete %s: %w", key, err)
	}
	s.files.pruneDirs(filepath.Dir(p))
	return nil
}

// Stat implements Store: the object's header, without its content.
func (s *FSStore) Stat(ctx context.Context, key string) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	f, obj, err := s.files.open(key)
	if err != nil {
		return Object{}, fmt.Errorf("storage: stat %s: %w", key, err)
	}
	f.Close()
	return obj, nil
}

// List implements Store with a walk of the object tree from the deepest
// directory the prefix names. Uploads in progress live outside it (tmp/),
// so they are never listed; neither is anything in the tree that is not a
// regular file under a valid key (a stray dot file, a symlink).
func (s *FSStore) List(ctx context.Context, prefix string, fn func(Object) error) error {
	if err := ValidatePrefix(prefix); err != nil {
		return err
	}
	dirKey := ""
	if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
		dirKey = prefix[:i]
	}
	var stop error // fn's own error, returned as is
	err := s.files.walk(ctx, dirKey, prefix, func(o Object) error {
		stop = fn(o)
		return stop
	})
	if stop != nil {
		return stop
	}
	if err != nil {
		return fmt.Errorf("storage: list %s: %w", prefix, err)
	}
	return nil
}

// PresignGet implements Store: an HMAC-signed URL on the gateway's
// DownloadRoute.
func (s *FSStore) PresignGet(ctx context.Context, key string, expiry time.Duration, opts PresignOptions) (string, error) {
	if err := ValidateKey(key); err != nil {
		return "", err
	}
	if err := validateFilename(opts.Filename); err != nil {
		return "", err
	}
	expiry, err := presignExpiry(expiry)
	if err != nil {
		return "", err
	}
	// Round the deadline up to the next whole second: the URL carries
	// seconds and must live at least as long as asked.
	deadline := s.now().Add(expiry)
	if deadline.Nanosecond() != 0 {
		deadline = deadline.Truncate(time.Second).Add(time.Second)
	}
	return s.base.String() + s.signer.sign(key, deadline, opts.Filename), nil
}

// fsObjects is the object tree shared by FSStore and the download handler.
type fsObjects struct {
	root string
}

func (o fsObjects) path(key string) string {
	// ValidateKey guarantees the key stays below root.
	return filepath.Join(o.root, filepath.FromSlash(key))
}

// open returns the object's file positioned at its content.
func (o fsObjects) open(key string) (*os.File, Object, error) {
	f, err := os.Open(o.path(key))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, Object{}, ErrNotFound
		}
		return nil, Object{}, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Object{}, err
	}
	if fi.IsDir() {
		f.Close()
		return nil, Object{}, ErrNotFound
	}
	var buf [headerSize]byte
	if _, err := io.ReadFull(f, buf[:]); err != nil {
		f.Close()
		return nil, Object{}, fmt.Errorf("read header: %w", err)
	}
	h, err := decodeHeader(buf[:])
	if err != nil {
		f.Close()
		return nil, Object{}, err
	}
	if h.Size != fi.Size()-headerSize {
		f.Close()
		return nil, Object{}, fmt.Errorf("corrupt object: header says %d bytes, file holds %d", h.Size, fi.Size()-headerSize)
	}
	return f, Object{Key: key, Size: h.Size, ContentType: h.ContentType, ETag: h.ETag, Modified: fi.ModTime().UTC()}, nil
}

// walk calls fn with the objects under the directory of key dirKey ("":
// the root) whose keys start with prefix, in ascending key order. Within a
// directory a subdirectory sorts as its name followed by '/', which is
// where S3's bytewise order puts the keys below it ("a-b/x" before "a/x"
// before "a0"), so the whole walk is in that order too. Entries that vanish
// meanwhile (a concurrent Delete) are skipped.
func (o fsObjects) walk(ctx context.Context, dirKey, prefix string, fn func(Object) error) error {
	dir := o.root
	if dirKey != "" {
		dir = o.path(dirKey)
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil
	}
	if err != nil {
		return err
	}
	type entry struct {
		name, sortName string
		dir            bool
	}
	list := make([]entry, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if keyProblem(name) != "" {
			continue
		}
		switch {
		case e.IsDir():
			list = append(list, entry{name: name, sortName: name + "/", dir: true})
		case e.Type().IsRegular():
			list = append(list, entry{name: name, sortName: name})
		}
	}
	slices.SortFunc(list, func(a, b entry) int { return strings.Compare(a.sortName, b.sortName) })
	for _, e := range list {
		if err := ctx.Err(); err != nil {
			return err
		}
		key := e.name
		if dirKey != "" {
			key = dirKey + "/" + e.name
		}
		if e.dir {
			// Only directories whose keys can start with prefix, or that
			// lead to it.
			if sub := key + "/"; strings.HasPrefix(sub, prefix) || strings.HasPrefix(prefix, sub) {
				if err := o.walk(ctx, key, prefix, fn); err != nil {
					return err
				}
			}
			continue
		}
		if !strings.HasPrefix(key, prefix) {
			continue
		}
		fi, err := os.Lstat(filepath.Join(dir, e.name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := fn(Object{Key: key, Size: max(fi.Size()-headerSize, 0), Modified: fi.ModTime().UTC()}); err != nil {
			return err
		}
	}
	return nil
}

// commit moves a finished upload into place atomically.
func (o fsObjects) commit(tmp, key string) error {
	dst := o.path(key)
	dir := filepath.Dir(dst)
	// A concurrent Delete may prune the directory between MkdirAll and
	// Rename; one retry covers it.
	for attempt := 0; ; attempt++ {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			if errors.Is(err, syscall.ENOTDIR) || errors.Is(err, fs.ErrExist) {
				return ErrKeyConflict
			}
			return err
		}
		err := os.Rename(tmp, dst)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrNotExist) && attempt == 0 {
			continue
		}
		if errors.Is(err, syscall.EISDIR) || errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, fs.ErrExist) {
			return ErrKeyConflict
		}
		return err
	}
	return syncDir(dir)
}

// pruneDirs removes empty directories from dir up to (not including) the
// root, so deleted key prefixes do not pile up. Failures are harmless: a
// directory still in use is simply not empty.
func (o fsObjects) pruneDirs(dir string) {
	for dir != o.root && strings.HasPrefix(dir, o.root+string(filepath.Separator)) {
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}

// headerSize is the fixed space before an object's content. Fixed so the
// header can be written after the content (when size and etag are known)
// and so the content starts at a known offset.
const headerSize = 512

type objectHeader struct {
	Version     int    `json:"v"`
	ContentType string `json:"content_type"`
	Size        int64  `json:"size"`
	ETag        string `json:"etag"`
}

func encodeHeader(h objectHeader) ([]byte, error) {
	b, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if len(b) >= headerSize {
		return nil, fmt.Errorf("object header of %d bytes exceeds %d", len(b), headerSize-1)
	}
	out := bytes.Repeat([]byte{' '}, headerSize)
	copy(out, b)
	out[headerSize-1] = '\n'
	return out, nil
}

func decodeHeader(b []byte) (objectHeader, error) {
	var h objectHeader
	if err := json.Unmarshal(b, &h); err != nil {
		return h, fmt.Errorf("corrupt object header: %w", err)
	}
	if h.Version != 1 {
		return h, fmt.Errorf("unsupported object header version %d", h.Version)
	}
	return h, nil
}
