package tokenizer

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

var update = flag.Bool("update", false, "regenerate testdata/golden-*.json with node (needs bash .ci/install-10-tokenizers.sh --with-js)")

// families are the tokenizer files .ci/install-10-tokenizers.sh installs,
// tiny, our small committed test tokenizer (testdata/tiny), which needs
// no download, and the extra families the installer adds with --extra
// (checked when present).
var families = []string{"qwen3", "llama3", "gpt4o", "llama2", "tiny",
	"deepseek_v3", "gemma3", "gptoss", "llama3_1", "gpt35turbo", "claude", "gemini"}

// repoRoot is the directory holding go.mod.
func repoRoot(t testing.TB) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the test directory")
		}
		dir = parent
	}
}

var (
	loadMu sync.Mutex
	loaded = map[string]*Tokenizer{}
)

// family loads .cache/tokenizers/<name> once per test binary, or skips
// loudly when the installer has not run.
func family(t testing.TB, name string) *Tokenizer {
	t.Helper()
	loadMu.Lock()
	defer loadMu.Unlock()
	if tk, ok := loaded[name]; ok {
		return tk
	}
	dir := filepath.Join(repoRoot(t), ".cache", "tokenizers", name)
	if name == "tiny" {
		dir = filepath.Join(repoRoot(t), "collect", "dataset", "tokenizer", "testdata", "tiny")
	}
	if _, err := os.Stat(filepath.Join(dir, TokenizerFile)); err != nil {
		t.Skipf("SKIP: %s tokenizer not installed (%v); run `make deps` or bash .ci/install-10-tokenizers.sh [--extra]", name, err)
	}
	tk, err := Load(dir)
	if err != nil {
		t.Fatalf("load %s: %v", name, err)
	}
	loaded[name] = tk
	return tk
}

type corpusEntry struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

type goldenFile struct {
	Package   string `json:"package"`
	Version   string `json:"version"`
	ChatError string `json:"chat_error"`
	Texts     []struct {
		Name       string `json:"name"`
		IDs        []int  `json:"ids"`
		IDsSpecial []int  `json:"ids_special"`
		Decoded    string `json:"decoded"`
		ChatIDs    []int  `json:"chat_ids"`
	} `json:"texts"`
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// TestGolden compares our ids with the JavaScript reference's for every
// corpus text and family: without and with special tokens, the decoded
// text, and (where the reference can render the template) the chat prompt.
func TestGolden(t *testing.T) {
	if *update {
		js := filepath.Join(repoRoot(t), ".cache", "tokenizers", "js", "node_modules")
		if _, err := os.Stat(js); err != nil {
			t.Fatalf("-update needs the JavaScript reference: bash .ci/install-10-tokenizers.sh --with-js (%v)", err)
		}
		cmd := exec.Command("node", filepath.Join("testdata", "golden.js"))
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("node golden.js: %v", err)
		}
	}
	var corpus []corpusEntry
	readJSON(t, filepath.Join("testdata", "corpus.json"), &corpus)
	for _, fam := range families {
		t.Run(fam, func(t *testing.T) {
			tk := family(t, fam)
			var g goldenFile
			readJSON(t, filepath.Join("testdata", "golden-"+fam+".json"), &g)
			if len(g.Texts) != len(corpus) {
				t.Fatalf("golden-%s.json has %d texts, corpus %d: run with -update", fam, len(g.Texts), len(corpus))
			}
			same, chatSame, chatN, chatUnknown := 0, 0, 0, 0
			for i, want := range g.Texts {
				text := corpus[i].Text
				if want.Name != corpus[i].Name {
					t.Fatalf("text %d: golden %q, corpus %q: run with -update", i, want.Name, corpus[i].Name)
				}
				ok := true
				got, err := tk.Encode(text)
				if err != nil || !slices.Equal(got, want.IDs) {
					t.Errorf("%s: Encode(%q)\n got %v (err %v)\nwant %v", want.Name, text, got, err, want.IDs)
					ok = false
				}
				gotS, err := tk.EncodeSpecial(text, true)
				if err != nil || !slices.Equal(gotS, want.IDsSpecial) {
					t.Errorf("%s: EncodeSpecial(true)\n got %v (err %v)\nwant %v", want.Name, gotS, err, want.IDsSpecial)
					ok = false
				}
				dec, err := tk.decodeNoCleanUp(want.IDs)
				if err != nil || dec != want.Decoded {
					t.Errorf("%s: Decode\n got %q (err %v)\nwant %q", want.Name, dec, err, want.Decoded)
					ok = false
				}
				if want.ChatIDs != nil {
					p, err := tk.ChatPrompt(text)
					if errors.Is(err, ErrUnknownChatTemplate) {
						chatUnknown++
						continue
					}
					chatN++
					var gotC []int
					if err == nil {
						gotC, err = tk.Encode(p)
					}
					if err != nil || !slices.Equal(gotC, want.ChatIDs) {
						t.Errorf("%s: chat prompt ids\n got %v (err %v)\nwant %v", want.Name, gotC, err, want.ChatIDs)
					} else {
						chatSame++
					}
				}
				if ok {
					same++
				}
			}
			t.Logf("%s (%s@%s): %d texts, %d identical (ids, ids with special tokens, decoded text); chat prompt: %d checked, %d identical, %d unknown (template not recognised)",
				fam, g.Package, g.Version, len(g.Texts), same, chatN, chatSame, chatUnknown)
			if g.ChatError != "" {
				t.Logf("%s: the reference could not render the chat template (%s); checked against llama-server instead", fam, g.ChatError)
			}
		})
	}
}
