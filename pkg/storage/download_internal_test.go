package storage

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/httpx"
)

// TestDownloadHandlerOpensOnlyValidKeys: even a URL correctly signed for a
// key that escapes the directory (a leaked signing key, or a signer bug)
// opens nothing outside the store.
func TestDownloadHandlerOpensOnlyValidKeys(t *testing.T) {
	dir := t.TempDir()
	key := []byte(strings.Repeat("k", MinSigningKeyLength))
	if err := os.WriteFile(filepath.Join(dir, "secret.txt"), []byte("TOP SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	h, err := NewDownloadHandler(DownloadOptions{Dir: dir, SigningKey: key})
	if err != nil {
		t.Fatal(err)
	}
	app := fiber.New(fiber.Config{ErrorHandler: httpx.ErrorHandler(slog.New(slog.DiscardHandler), nil)})
	app.Get(DownloadRoute, h)
	signer, err := newURLSigner(key)
	if err != nil {
		t.Fatal(err)
	}
	for _, evil := range []string{"../secret.txt", "./../secret.txt", "a/../../secret.txt"} {
		target := signer.sign(evil, time.Now().Add(time.Hour), "")
		resp, err := app.Test(httptest.NewRequest(http.MethodGet, target, nil))
		if err != nil {
			t.Fatalf("%s: %v", target, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusNotFound || strings.Contains(string(body), "SECRET") {
			t.Fatalf("%s: %d %q, want 404 and nothing from outside the store", target, resp.StatusCode, body)
		}
	}
}
