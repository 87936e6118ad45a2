package blocks

import (
	"testing"

	"github.com/perflab/perflab/collect/schema"
)

// TestBenchCommandWorkloads: a profile's command written from the campaign
// (no recorded result, or a sweep's) carries its workload settings, as
// perflab collect passes them to perflab bench; without them the command
// would run another benchmark (random-length custom outputs, no sessions,
// a fixed rate).
func TestBenchCommandWorkloads(t *testing.T) {
	pre, no := 512, false
	c := &schema.Campaign{Model: schema.CampaignModel{ID: "m"}}
	for _, tt := range []struct {
		p    schema.Profile
		want string
	}{
		{schema.Profile{Dataset: "custom", DatasetPath: "p.jsonl", CustomOutputLen: -1, SkipChatTemplate: true, OutputLen: 9, NumPrompts: 3},
			"perflab bench --model m --dataset-name custom --dataset-path p.jsonl --custom-output-len -1 --skip-chat-template --num-prompts 3"},
		{schema.Profile{Dataset: "prefix_repetition", PrefixRepetitionPrefixLen: &pre, PrefixRepetitionNumPrefixes: 4, PrefixRepetitionOutputLen: 8, NumPrompts: 40},
			"perflab bench --model m --dataset-name prefix_repetition --prefix-repetition-prefix-len 512 --prefix-repetition-num-prefixes 4 --prefix-repetition-output-len 8 --num-prompts 40"},
		{schema.Profile{Dataset: "timed_trace", DatasetPath: "t.jsonl", TimedTraceChunkHashSize: 10, TimedTraceSecMultiplier: 0.001, SelfTimed: &no, NumPrompts: 3},
			"perflab bench --model m --dataset-name timed_trace --dataset-path t.jsonl --timed-trace-chunk-hash-size 10 --timed-trace-sec-multiplier 0.001 --no-self-timed --num-prompts 3"},
		{schema.Profile{Dataset: "random", InputLen: 512, OutputLen: 32, MultiTurn: true, MultiTurnNumTurns: 4, PerTurnInputLen: 64,
			MultiTurnPrefixGlobalRatio: 0.25, MultiTurnPrefixConversationRatio: 0.5, NumPrompts: 16},
			"perflab bench --model m --dataset-name random --random-input-len 512 --random-output-len 32 --multi-turn --multi-turn-num-turns 4 --per-turn-input-len 64 --multi-turn-prefix-global-ratio 0.25 --multi-turn-prefix-conversation-ratio 0.5 --num-prompts 16"},
		{schema.Profile{Dataset: "random", InputLen: 64, OutputLen: 8, RampUpStrategy: "linear", RampUpStartRPS: 10, RampUpEndRPS: 50, NumPrompts: 60},
			"perflab bench --model m --dataset-name random --random-input-len 64 --random-output-len 8 --ramp-up-strategy linear --ramp-up-start-rps 10 --ramp-up-end-rps 50 --num-prompts 60"},
		{schema.Profile{Dataset: "sharegpt", DatasetPath: "s.json", OutputLen: 100, NumPrompts: 10},
			"perflab bench --model m --dataset-name sharegpt --dataset-path s.json --sharegpt-output-len 100 --num-prompts 10"},
	} {
		if got := benchCommand(c, tt.p, "perflab bench"); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.p.Dataset, got, tt.want)
		}
	}
}
