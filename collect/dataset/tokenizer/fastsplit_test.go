package tokenizer

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/dlclark/regexp2"
)

// TestFastSplitMatchesRegexp2 compares the hand-written matchers with
// regexp2 on random strings drawn from an alphabet full of edge cases:
// every kind of whitespace (including U+0085, U+00A0, U+3000, U+FEFF),
// newlines, letters of several scripts, combining marks, digits of
// several scripts, punctuation, symbols, emoji, apostrophes and the
// letters of contractions in both cases, and U+017F / U+212A, which
// case-fold to s and k.
func TestFastSplitMatchesRegexp2(t *testing.T) {
	alphabet := []rune("aZ sStTrReEvVmMlLdD'''\"\r\n\n\t\v\f   \u0085\u00a0\u3000\u2003\u2028\ufeff\u200b" +
		"你好世界ひらカタ한글éßΣσж\u0301\u0308١٢٣４5½Ⅻ0123456789.,!?;:-_/\\()[]{}<>@#$%^&*+=~`|😀👍🏽\u200d❤\ufe0fſ\u212a" +
		"AbCdEFGHijklMNOP" + // runs of upper and lower case
		"\u01c5\u02b0\u30fc\u0e01\u0e34\u0915\u093e\u20dd\u0903") // Lt, Lm, Lm (ー), Lo+Mn (Thai), Lo+Mc (Devanagari), Me, Mc
	for _, c := range []struct {
		name, pattern string
	}{{"qwen", qwenPattern}, {"llama3", llama3Pattern}, {"gpt4o", gpt4oPattern}} {
		re := regexp2.MustCompile(c.pattern, regexp2.None)
		fast := fastSplitter(c.pattern)
		rng := rand.New(rand.NewPCG(3, 4))
		for k := 0; k < 20000; k++ {
			var b strings.Builder
			for n := rng.IntN(24); n >= 0; n-- {
				b.WriteRune(alphabet[rng.IntN(len(alphabet))])
			}
			s := b.String()
			want, err := regexSpans(re, s, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := fast(s, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: %q\n fast  %v\n regex %v", c.name, s, pieces(s, got), pieces(s, want))
			}
		}
	}
}

func pieces(s string, spans []span) []string {
	var out []string
	for _, sp := range spans {
		out = append(out, s[sp.start:sp.end])
	}
	return out
}

func TestFastSplitterOnlyForKnownPatterns(t *testing.T) {
	if fastSplitter(qwenPattern) == nil || fastSplitter(llama3Pattern) == nil || fastSplitter(gpt4oPattern) == nil {
		t.Fatal("known pattern not recognised")
	}
	if fastSplitter(qwenPattern+"|x") != nil || fastSplitter(gpt2Pattern) != nil {
		t.Error("unknown pattern got a fast matcher")
	}
}

// TestFastSplitterUsedByRealFiles checks the constants are byte for byte
// the regexes of the real files, so those files get the fast path.
func TestFastSplitterUsedByRealFiles(t *testing.T) {
	for _, fam := range []string{"qwen3", "llama3", "gpt4o"} {
		tk := family(t, fam)
		seq, ok := tk.preTokenizer.(preSequence)
		if !ok || len(seq) == 0 {
			t.Fatalf("%s: pre-tokenizer %T", fam, tk.preTokenizer)
		}
		sp, ok := seq[0].(splitPre)
		if !ok || sp.pat.fast == nil {
			t.Errorf("%s: Split pattern has no fast matcher", fam)
		}
	}
}

// BenchmarkFastSplit measures the hand-written pre-tokenizer matchers
// alone (no BPE), on the English and CJK benchmark texts.
func BenchmarkFastSplit(b *testing.B) {
	for _, p := range []struct{ name, pattern string }{
		{"qwen", qwenPattern}, {"llama3", llama3Pattern}, {"gpt4o", gpt4oPattern},
	} {
		for _, t := range []struct {
			name     string
			prefixes []string
		}{{"english", english}, {"cjk", cjk}} {
			b.Run(p.name+"/"+t.name, func(b *testing.B) {
				split := fastSplitter(p.pattern)
				text := benchText(b, t.prefixes...)
				var out []span
				b.SetBytes(int64(len(text)))
				b.ResetTimer()
				for range b.N {
					out = split(text, out[:0])
				}
			})
		}
	}
}
