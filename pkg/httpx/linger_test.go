package httpx

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/acctsuite/acct/pkg/apperr"
)

// TestOversizedBodyGetsReadable413 sends bodies far over the limit to a
// served app, over and over: fasthttp refuses them from the Content-Length
// before any handler and closes the connection while the client is still
// writing. Every attempt must read the 413 error object, never a reset.
func TestOversizedBodyGetsReadable413(t *testing.T) {
	app, _ := newTestApp(t, Options{BodyLimit: 64 << 10})
	stored := 0
	app.Post("/things", func(c *fiber.Ctx) error {
		stored++
		return c.SendStatus(fiber.StatusCreated)
	})
	Finish(app)
	base := serve(t, app)
	body := bytes.Repeat([]byte("x"), 4<<20)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	for i := range 50 {
		status, got, err := postOnce(client, base+"/things", body)
		if err != nil {
			t.Fatalf("attempt %d: %v", i, err)
		}
		var obj apperr.Body
		if status != http.StatusRequestEntityTooLarge || json.Unmarshal(got, &obj) != nil || obj.Type != string(apperr.PayloadTooLarge) || obj.Description == "" {
			t.Fatalf("attempt %d: %d %s", i, status, got)
		}
	}
	if stored != 0 {
		t.Fatalf("the handler ran %d times", stored)
	}
	// The connection's last word was the 413: a small request still works.
	if status, got, err := postOnce(client, base+"/things", []byte("{}")); err != nil || status != http.StatusCreated {
		t.Fatalf("small body after: %d %s %v", status, got, err)
	}
}

// postOnce posts body and returns the status and the answer's body.
func postOnce(client *http.Client, url string, body []byte) (int, []byte, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	return resp.StatusCode, got, err
}
