package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The secrets of TestPublishKeepsSecretsOff: a Hugging Face token in an
// experiment's env, an API key in its command, a key with no token shape
// in a YAML list (found by value), and what a careless import could leave
// in results (a command's key, a token in a raw output and an env map).
const (
	secretHF      = "hf_q9Wm3ZtLx8PvRk2NcYd7HsJf"
	secretSK      = "sk-proj-Tg5Ue8Lw2Qz7Nb4Vx9Ma3Kc6"
	secretPlain   = "plain-s3cr3t-Gq7Wz"
	secretRawHF   = "hf_Rr8Nw2Kq5Lm9Tx4Vb7Zc3Yd6P"
	secretNoteGHP = "ghp_Aa1Bb2Cc3Dd4Ee5Ff6Gg7Hh8Ii9Jj0"
)

// TestPublishKeepsSecretsOff builds and publishes the bundled site with a
// campaign holding secrets (as a user would write it: env: {HF_TOKEN:
// hf_…}, --api-key sk-… in a command) and results and a narrative holding
// more, to a local bare repository, and finds none of them anywhere in
// the pushed tree: pages, the copied campaign.yaml, data.json and
// data.csv, the search index. A reference to the environment (${HF_TOKEN})
// is shown as written. Then a secret redaction cannot see (inside a file
// that is not text) makes publish refuse, naming file and line, unless
// --allow-secrets.
func TestPublishKeepsSecretsOff(t *testing.T) {
	_, bare := gitRepo(t)
	copyRepoDir(t, "content")
	copyRepoDir(t, "results")
	os.WriteFile(".gitignore", []byte("/site/\n"), 0o644)
	camp := filepath.Join("content", "demo", "mock-h100", "campaign.yaml")
	edit(t, camp,
		"        args: [--preset, vllm]\n",
		"        args: [--preset, vllm]\n        env: {HF_TOKEN: "+secretHF+", VLLM_LOGGING_LEVEL: INFO}\n")
	edit(t, camp,
		"        args: [--preset, sglang]\n",
		"        args: [--preset, sglang, --api-key, "+secretPlain+"]\n        env:\n          HF_TOKEN: ${HF_TOKEN}\n")
	edit(t, camp,
		"--decode-step 4ms\n  - id: scheduling",
		"--decode-step 4ms --api-key "+secretSK+"\n  - id: scheduling")
	edit(t, filepath.Join("content", "demo", "mock-h100", "index.md"),
		"## Optimization Objective\n",
		"We served with `HF_TOKEN="+secretHF+" vllm serve` and a note key "+secretNoteGHP+".\n\n## Optimization Objective\n")
	res := filepath.Join("results", "demo-mock-h100", "vllm--short.json")
	var r map[string]any
	if err := json.Unmarshal(readFileT(t, res), &r); err != nil {
		t.Fatal(err)
	}
	eng := r["engine"].(map[string]any)
	eng["command"] = eng["command"].(string) + " --api-key " + secretSK
	eng["env"] = map[string]any{"HF_TOKEN": secretHF}
	r["raw_output"] = "Authorization: Bearer " + secretPlain + "\ntoken " + secretRawHF + "\n" + r["raw_output"].(string)
	r["warnings"] = []any{"engine printed --api-key=" + secretPlain}
	data, _ := json.MarshalIndent(r, "", "  ")
	os.WriteFile(res, data, 0o644)
	// An older round's result: its runs are on the page's history and in
	// data.json's rounds.
	old := filepath.Join("results", "demo-mock-rounds", "rounds", "2", "large-batch--chat--c16--r1.json")
	var o map[string]any
	if err := json.Unmarshal(readFileT(t, old), &o); err != nil {
		t.Fatal(err)
	}
	load := o["load"].(map[string]any)
	load["command"] = load["command"].(string) + " --header Authorization=Bearer " + secretSK
	data, _ = json.MarshalIndent(o, "", "  ")
	os.WriteFile(old, data, 0o644)
	gitT(t, ".", "add", "-A")
	gitT(t, ".", "commit", "-q", "-m", "reports with secrets")

	var out, errb bytes.Buffer
	if err := run(context.Background(), []string{"publish"}, &out, &errb); err != nil {
		t.Fatalf("publish: %v\n%s", err, errb.String())
	}
	tree := filepath.Join(t.TempDir(), "tree")
	os.MkdirAll(tree, 0o755)
	arch := exec.Command("sh", "-c", `git -C "$1" archive gh-pages | tar -x -C "$2"`, "sh", bare, tree)
	if o, err := arch.CombinedOutput(); err != nil {
		t.Fatalf("git archive: %v\n%s", err, o)
	}
	var seen []string
	refShown := false
	filepath.WalkDir(tree, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(p)
		rel, _ := filepath.Rel(tree, p)
		seen = append(seen, rel)
		for _, s := range []string{secretHF, secretSK, secretPlain, secretRawHF, secretNoteGHP} {
			// Any long piece of a secret, HTML- or JSON-escaped or not.
			if bytes.Contains(b, []byte(s[4:16])) {
				t.Errorf("%s holds a secret (%s…)", rel, s[:6])
			}
		}
		refShown = refShown || strings.Contains(rel, "mock-h100") && bytes.Contains(b, []byte("${HF_TOKEN}"))
		return nil
	})
	for _, want := range []string{"demo/mock-h100/index.html", "demo/mock-h100/campaign.yaml", "demo/mock-h100/data.json", "demo/mock-h100/data.csv", "demo/mock-rounds/data.json", "search.json"} {
		if !strings.Contains(strings.Join(seen, "\n"), want) {
			t.Errorf("pushed tree lacks %s (the test would check nothing)", want)
		}
	}
	if !refShown {
		t.Error("the reference ${HF_TOKEN} is not shown on the report")
	}
	if yaml := string(readFileT(t, filepath.Join(tree, "demo", "mock-h100", "campaign.yaml"))); !strings.Contains(yaml, "HF_TOKEN: <redacted>") || !strings.Contains(yaml, "--api-key <redacted>") {
		t.Errorf("copied campaign.yaml:\n%s", yaml)
	}

	// A file that is not text is copied as it is: a token in it is found
	// by publish's last look, which refuses the site.
	os.WriteFile(filepath.Join("content", "demo", "blob.bin"), []byte("\x00\x01head\nkey="+secretRawHF+"\n"), 0o644)
	out.Reset()
	errb.Reset()
	err := run(context.Background(), []string{"publish", "--message", "leaky"}, &out, &errb)
	if err == nil || !strings.Contains(err.Error(), "blob.bin:2: hf_Rr8") || !strings.Contains(err.Error(), "--allow-secrets") || strings.Contains(err.Error(), secretRawHF) {
		t.Fatalf("publish of a site with a token: %v", err)
	}
	if s := gitT(t, bare, "log", "-1", "--format=%s", "gh-pages"); s == "leaky" {
		t.Error("the refused site was pushed")
	}
	if err := run(context.Background(), []string{"publish", "--allow-secrets", "--message", "allowed"}, &out, &errb); err != nil {
		t.Fatalf("publish --allow-secrets: %v\n%s", err, errb.String())
	}
	if s := gitT(t, bare, "log", "-1", "--format=%s", "gh-pages"); s != "allowed" {
		t.Errorf("--allow-secrets did not publish: tip %q", s)
	}
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b := readFileT(t, file)
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s lacks %q", file, old)
	}
	os.WriteFile(file, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644)
}

func readFileT(t *testing.T, file string) []byte {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func gitT(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}
