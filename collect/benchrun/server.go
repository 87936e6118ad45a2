package benchrun

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// The requests around a run that perflab bench makes of the server:
// waiting for it, finding its model, its profiler.

// WaitReady polls GET base/v1/models every poll until it answers 200 (an
// engine still loading answers 503 or refuses connections), for at most
// timeout, writing vLLM's lines to log: perflab bench's
// --ready-check-timeout-sec, before the model list and the server's
// /tokenize are needed (the test request then gets its own timeout, as
// vLLM's); for scripts that start the server and the benchmark together.
func WaitReady(ctx context.Context, client *http.Client, base string, timeout, poll time.Duration, log io.Writer) error {
	fmt.Fprintf(log, "Waiting for %s/v1/models to answer (up to %v)...\n", base, timeout)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		rctx, cancel := context.WithTimeout(ctx, poll)
		req, err := http.NewRequestWithContext(rctx, http.MethodGet, base+"/v1/models", nil)
		if err != nil {
			cancel()
			return fmt.Errorf("ready check: %w", err)
		}
		resp, err := client.Do(req)
		if err == nil {
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				cancel()
				fmt.Fprintln(log, "Model list is up.")
				return nil
			}
			last = resp.Status
		} else {
			last = err.Error()
		}
		<-rctx.Done()
		cancel()
		if ctx.Err() != nil {
			return fmt.Errorf("ready check: %w", ctx.Err())
		}
		if !time.Now().Before(deadline) {
			return fmt.Errorf("%s not ready after %v (last: %s)", base, timeout, last)
		}
	}
}

// FirstModel asks the server for its first model, as vLLM does when
// --model is not given: the name to send (its id) and the model id to
// record (its root, the model path behind a --served-model-name; the id
// when the server gives no root). Its errors read as perflab bench's
// after its "bench: " (a URL no request can be made to is not a missing
// model list).
func FirstModel(ctx context.Context, client *http.Client, base string) (name, id string, err error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return "", "", fmt.Errorf("model list: %w", err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("no --model given and the model list failed: %w", err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID   string `json:"id"`
			Root string `json:"root"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("no --model given and GET %s/v1/models: %s", base, resp.Status)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil || len(list.Data) == 0 || list.Data[0].ID == "" {
		return "", "", fmt.Errorf("no --model given and GET %s/v1/models lists no model (%v)", base, err)
	}
	m := list.Data[0]
	if m.Root == "" {
		m.Root = m.ID
	}
	return m.ID, m.Root, nil
}

// Profiler POSTs base+route (vLLM's /start_profile, /stop_profile):
// the server's profiler, which must be configured on the server.
func Profiler(ctx context.Context, client *http.Client, base, route string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+route, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", route, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("POST %s%s: %s %s (start the server with a profiler configured)", base, route, resp.Status, strings.TrimSpace(string(b)))
	}
	return nil
}
