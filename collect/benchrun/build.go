package benchrun

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/perflab/perflab/collect/dataset"
)

// Workload is what a run sends: the samples, or the conversations, with
// the prompt token ids and release times where the dataset has them.
type Workload struct {
	Samples []dataset.Sample
	// PromptIDs are the samples' prompts as token ids (timed_trace,
	// PromptTokenIDs); nil: text.
	PromptIDs [][]int
	// Times are the samples' release times in seconds (a self-timed
	// trace); nil: the request rate's schedule.
	Times []float64
	// Conversations replace Samples with MultiTurn.
	Conversations []dataset.Conversation
	// Aligned counts the prompts cut to the server's tokenizer (see
	// Options.Aligns).
	Aligned int
}

// Build builds the dataset of o: the samples (aligned to the server's
// tokenizer when o.Aligns), or the conversations. A dataset file at fault
// comes back as a *dataset.FileError and settings that cannot build it as
// a *dataset.SettingsError (the caller's usage errors); the error names
// the dataset.
func Build(ctx context.Context, o *Options) (*Workload, error) {
	d := &o.Dataset
	if o.Tokenizer == nil {
		return nil, fmt.Errorf("dataset %s: no tokenizer", d.name())
	}
	if d.MultiTurn != nil {
		c, err := conversations(ctx, o.Tokenizer, d)
		if err != nil {
			return nil, datasetError("multi-turn "+d.name(), err)
		}
		return &Workload{Conversations: c}, nil
	}
	w, err := samples(ctx, o.Tokenizer, d)
	if err != nil {
		return nil, datasetError(d.name(), err)
	}
	if len(w.Samples) == 0 {
		return nil, fmt.Errorf("dataset %s: no samples", d.name())
	}
	if o.Aligns() {
		log := o.Log
		if log == nil {
			log = io.Discard
		}
		srv := dataset.NewServerTokenizer(o.Bench.BaseURL, o.Bench.Model, o.auxClient())
		w.Samples, w.Aligned = dataset.AlignToServer(ctx, srv, w.Samples, log)
		if w.Aligned > 0 {
			fmt.Fprintf(log, "perflab: %d of %d prompts were longer by the server's tokenizer: cut to their length with its /detokenize\n", w.Aligned, len(w.Samples))
		}
	}
	if d.PromptTokenIDs && d.name() != "timed_trace" {
		// the ids the server would tokenize the text into (no special
		// tokens: the server adds its own)
		w.PromptIDs = make([][]int, len(w.Samples))
		for i := range w.Samples {
			if w.PromptIDs[i], err = o.Tokenizer.Encode(w.Samples[i].Prompt); err != nil {
				return nil, fmt.Errorf("--prompt-token-ids: prompt %d: %w", i, err)
			}
		}
	}
	return w, nil
}

// samples is the dataset switch: one case per dataset.
func samples(ctx context.Context, tok dataset.Tokenizer, d *Dataset) (*Workload, error) {
	w := &Workload{}
	var err error
	switch d.name() {
	case "sharegpt":
		w.Samples, err = dataset.ShareGPT(ctx, tok, d.Path, dataset.ShareGPTConfig{NumPrompts: d.NumPrompts,
			OutputLen: d.ShareGPTOutputLen, Seed: d.Seed, DisableShuffle: d.DisableShuffle, NoOversample: d.NoOversample})
	case "custom":
		w.Samples, err = dataset.Custom(ctx, tok, d.Path, dataset.CustomConfig{NumPrompts: d.NumPrompts,
			OutputLen: d.CustomOutputLen, SkipChatTemplate: d.SkipChatTemplate, Seed: d.Seed,
			DisableShuffle: d.DisableShuffle, NoOversample: d.NoOversample})
	case "timed_trace":
		var tr *dataset.Trace
		tr, err = dataset.TimedTrace(ctx, tok, d.Path, dataset.TimedTraceConfig{NumPrompts: d.NumPrompts,
			BlockTokens: d.TraceBlockTokens, SecMultiplier: d.TraceSecMultiplier, KeyTimestamp: d.TraceKeyTimestamp,
			KeyInput: d.TraceKeyInput, KeyOutput: d.TraceKeyOutput, KeyHashIDs: d.TraceKeyHashIDs})
		if err == nil {
			w.Samples, w.PromptIDs = tr.Samples, tr.IDs
			if d.SelfTimed {
				w.Times = tr.AtS
			}
		}
	case "prefix_repetition":
		w.Samples, err = dataset.PrefixRepetition(ctx, tok, dataset.PrefixRepetitionConfig{NumPrompts: d.NumPrompts,
			PrefixLen: d.PrefixLen, SuffixLen: d.SuffixLen, NumPrefixes: d.NumPrefixes, OutputLen: d.PrefixOutputLen,
			Seed: d.Seed, DisableShuffle: d.DisableShuffle})
	case "random":
		w.Samples, err = dataset.RandomContext(ctx, tok, dataset.RandomConfig{NumPrompts: d.NumPrompts,
			InputLen: d.RandomInputLen, OutputLen: d.RandomOutputLen, RangeRatio: d.RandomRangeRatio,
			PrefixLen: d.RandomPrefixLen, Seed: d.Seed})
	default:
		err = &dataset.SettingsError{Err: fmt.Errorf("unknown dataset %q (want one of %v)", d.Name, Datasets)}
	}
	return w, err
}

// conversations builds the multi-turn conversations.
func conversations(ctx context.Context, tok dataset.Tokenizer, d *Dataset) ([]dataset.Conversation, error) {
	mt := d.MultiTurn
	switch d.name() {
	case "sharegpt":
		return dataset.MultiTurnShareGPT(ctx, tok, d.Path, dataset.MultiTurnShareGPTConfig{NumConversations: d.NumPrompts,
			MaxTurns: mt.MaxTurns, OutputLen: d.ShareGPTOutputLen, Seed: d.Seed, DisableShuffle: d.DisableShuffle})
	case "random":
		lo, hi := mt.Turns()
		if hi < lo {
			return nil, &dataset.SettingsError{Err: fmt.Errorf("the most turns %d is below the fewest %d", hi, lo)}
		}
		return dataset.MultiTurnRandom(ctx, tok, dataset.MultiTurnRandomConfig{NumConversations: d.NumPrompts,
			MinTurns: lo, MaxTurns: hi, InputLen: d.RandomInputLen, PerTurnInputLen: mt.PerTurnInputLen,
			OutputLen: d.RandomOutputLen, PrefixLen: d.RandomPrefixLen, Seed: d.Seed,
			GlobalRatio: mt.GlobalRatio, ConversationRatio: mt.ConversationRatio})
	}
	return nil, &dataset.SettingsError{Err: fmt.Errorf("multi-turn builds conversations from random or sharegpt, not %s", d.name())}
}

// datasetError names the dataset in err unless the dataset package did.
func datasetError(name string, err error) error {
	if strings.HasPrefix(err.Error(), "dataset: ") {
		return err
	}
	return fmt.Errorf("dataset %s: %w", name, err)
}
