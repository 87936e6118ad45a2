package dataset

import (
	"context"
	"fmt"
	"io"
	"sync"
)

// alignWorkers is how many prompts vLLM re-tokenizes at once (its
// asyncio.Semaphore(64)).
const alignWorkers = 64

// AlignToServer is vLLM's _align_prompts_to_server_tokenizer (serve.py,
// vLLM after 0.28, for the random and prefix_repetition datasets): the
// first prompt is tokenized by the server (no special tokens); when the
// server's count differs from its PromptLen, every prompt is tokenized by
// the server and one longer than its PromptLen is cut to PromptLen tokens
// and decoded back by the server's /detokenize, its PromptLen kept. A
// server without /tokenize leaves the samples as they are, as does a
// prompt whose own request fails. It writes vLLM's warnings to log and
// returns the samples (a new slice when any changed) and how many changed.
func AlignToServer(ctx context.Context, srv *ServerTokenizer, s []Sample, log io.Writer) ([]Sample, int) {
	if len(s) == 0 {
		return s, 0
	}
	first, err := srv.EncodeContext(ctx, s[0].Prompt, false)
	if err != nil {
		fmt.Fprintln(log, "perflab: warning: /tokenize unavailable, skipping alignment.")
		return s, 0
	}
	if len(first) == s[0].PromptLen {
		return s, 0
	}
	fmt.Fprintf(log, "perflab: warning: tokenizer mismatch (server=%d, expected=%d), re-aligning prompts.\n", len(first), s[0].PromptLen)
	out := append([]Sample(nil), s...)
	changed := make([]bool, len(out))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(alignWorkers, len(out)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				ids, err := srv.EncodeContext(ctx, out[i].Prompt, false)
				if err != nil || len(ids) <= out[i].PromptLen {
					continue
				}
				text, err := srv.DecodeContext(ctx, ids[:out[i].PromptLen])
				if err != nil {
					continue
				}
				out[i].Prompt, changed[i] = text, true
			}
		}()
	}
	for i := range out {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	n := 0
	for _, c := range changed {
		if c {
			n++
		}
	}
	return out, n
}
