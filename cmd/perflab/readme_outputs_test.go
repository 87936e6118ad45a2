package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perflab/perflab/collect"
	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/render"
)

// The outputs README.md and docs/ show are kept true by these tests, as
// the docs' flag lists are by docs_test.go: they drifted (the bench example lacked the
// steady-state block bench prints; the build line said 5 pages / 25 files
// when the bundled site had 6 / 30; the sweep demo's log listed the runs
// in another order than collect runs them).

// readme is README.md followed by every page of docs/, the reference it
// links to: the outputs these tests check may stand in either.
func readme(t *testing.T) string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	for _, p := range append([]string{filepath.Join("..", "..", "README.md")}, pages...) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
		all.WriteString("\n")
	}
	return all.String()
}

// codeBlocks returns the README's fenced blocks' lines.
func codeBlocks(text string) [][]string {
	var out [][]string
	var cur []string
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "```") {
			if in {
				out = append(out, cur)
				cur = nil
			}
			in = !in
			continue
		}
		if in {
			cur = append(cur, l)
		}
	}
	return out
}

var buildLineRE = regexp.MustCompile(`^perflab build: (\d+) pages \((\d+) reports\), (\d+) files in site(?: \((\d+) pages from the cache\))?, `)

// TestREADMEBuildLines: every "perflab build: N pages (M reports), F
// files" line the README shows for the repository's own site (a block
// without a warning and without a cd elsewhere) has the bundled site's
// counts.
func TestREADMEBuildLines(t *testing.T) {
	root := filepath.Join("..", "..")
	st, err := render.BuildStats(context.Background(), render.Options{Content: filepath.Join(root, "content"), Results: filepath.Join(root, "results"), Out: filepath.Join(t.TempDir(), "site")})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, block := range codeBlocks(readme(t)) {
		joined := strings.Join(block, "\n")
		if strings.Contains(joined, "warning:") || strings.Contains(joined, "cd ") {
			continue // another site: a migrated lab, a campaign changed for the example
		}
		for _, l := range block {
			m := buildLineRE.FindStringSubmatch(l)
			if m == nil {
				continue
			}
			checked++
			pages, _ := strconv.Atoi(m[1])
			reports, _ := strconv.Atoi(m[2])
			files, _ := strconv.Atoi(m[3])
			if pages != st.Pages || reports != st.Reports || files != st.Files {
				t.Errorf("README: %q; the bundled site builds %d pages (%d reports), %d files", l, st.Pages, st.Reports, st.Files)
			}
			if m[4] != "" {
				if cached, _ := strconv.Atoi(m[4]); cached >= pages {
					t.Errorf("README: %q: more pages from the cache than pages", l)
				}
			}
		}
	}
	if checked < 2 {
		t.Errorf("%d README build lines checked; the quick tour's and perflab build's were expected", checked)
	}
}

var runLineRE = regexp.MustCompile(`^(\S+): (ok|crashed|failed|skipped): `)

// TestREADMECollectLogOrder: the README's collect logs list runs in the
// order collect runs them (the plan's order), and the engine started
// first is the first run's.
func TestREADMECollectLogOrder(t *testing.T) {
	checked := 0
	prev := "" // the campaign of the block before: a command block, then its output
	for _, block := range codeBlocks(readme(t)) {
		campaign := ""
		for _, l := range block {
			for _, c := range []string{"content/demo/mock-sweep", "content/demo/mock-h100"} {
				if strings.HasPrefix(strings.TrimPrefix(l, "$ "), "perflab collect "+c) {
					campaign = c
				}
			}
		}
		if campaign == "" && len(block) > 0 && strings.HasPrefix(block[0], "collect demo-") {
			campaign = prev
		}
		prev = campaign
		if campaign == "" {
			continue
		}
		f, err := collect.Load(filepath.Join("..", "..", campaign, "campaign.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		plan := collect.NewPlan(&f.Campaign, t.TempDir())
		index := map[string]int{}
		for i, r := range plan.Runs {
			index[r.Name] = i
		}
		last, first := -1, ""
		for _, l := range block {
			if m := runLineRE.FindStringSubmatch(l); m != nil {
				i, ok := index[m[1]]
				if !ok {
					t.Errorf("%s: README run %q is not in the plan", campaign, m[1])
					continue
				}
				if i <= last {
					t.Errorf("%s: README lists %s after %s; collect runs them the other way round", campaign, m[1], plan.Runs[last].Name)
				}
				if first == "" {
					first = m[1]
				}
				last = i
				checked++
			}
		}
		for _, l := range block {
			if exp, _, ok := strings.Cut(l, ": starting "); ok && !strings.Contains(exp, " ") {
				if first != "" && !strings.HasPrefix(first, exp+"--") {
					t.Errorf("%s: README starts %s first, but its first run is %s", campaign, exp, first)
				}
				break
			}
		}
	}
	if checked < 4 {
		t.Errorf("%d README collect log lines checked", checked)
	}
}

var numberRE = regexp.MustCompile(`[0-9][0-9.,]*`)

// TestREADMEBenchOutput runs the quick tour's bench command against the
// mock it starts and compares the shape of the output (every line, its
// numbers masked) with the README's: the steady-state block bench prints
// was missing there.
func TestREADMEBenchOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("SKIP: -short: runs the README's 200-prompt benchmark against the mock (about 13 s)")
	}
	text := readme(t)
	i := strings.Index(text, "perflab mock --preset vllm --model Qwen/Qwen3-8B &")
	if i < 0 {
		t.Fatal("README: quick tour's mock command not found")
	}
	cmdText := text[i:]
	j := strings.Index(cmdText, "perflab bench ")
	k := strings.Index(cmdText, "\n```")
	line := strings.ReplaceAll(cmdText[j:k], "\\\n", " ")
	args := strings.Fields(line)[1:] // after "perflab"
	var want []string
	for _, block := range codeBlocks(text) {
		if len(block) > 0 && strings.HasPrefix(block[0], "mock: batching:") {
			for n, l := range block {
				if strings.HasPrefix(l, "============ Serving Benchmark Result") {
					want = block[n:]
					break
				}
			}
			break
		}
	}
	if len(want) == 0 {
		t.Fatal("README: the bench example's output block not found")
	}
	port, err := engine.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		var o, e bytes.Buffer
		done <- run(ctx, []string{"mock", "--preset", "vllm", "--model", "Qwen/Qwen3-8B", "--port", strconv.Itoa(port)}, &o, &e)
	}()
	defer func() { cancel(); <-done }()
	args = append(args, "--port", strconv.Itoa(port), "--result-dir", t.TempDir())
	var stdout, stderr bytes.Buffer
	deadline := time.Now().Add(10 * time.Second)
	for {
		stdout.Reset()
		stderr.Reset()
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil {
			break
		}
		if time.Now().After(deadline) || !strings.Contains(stderr.String()+err.Error(), "connection refused") {
			t.Fatalf("perflab %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
	for n, l := range got {
		if strings.HasPrefix(l, "============ Serving Benchmark Result") {
			got = got[n:]
			break
		}
	}
	mask := func(ls []string) string {
		out := make([]string, len(ls))
		for n, l := range ls {
			out[n] = numberRE.ReplaceAllString(strings.TrimRight(l, " "), "#")
		}
		return strings.Join(out, "\n")
	}
	if mask(got) != mask(want) {
		t.Errorf("the README's bench output differs from what the command prints (numbers masked).\nREADME:\n%s\n\nprinted:\n%s", strings.Join(want, "\n"), stdout.String())
	}
}

var unknownBlockRE = regexp.MustCompile(`field block: unknown block type "([a-z-]+)".*$`)

// TestDocsUnknownBlockError: the unknown-block errors README.md and docs/
// show (build.md, serve.md) are the ones the build gives, with today's
// list of block types (they listed 10 of the 15 types, and no guess).
func TestDocsUnknownBlockError(t *testing.T) {
	checked := 0
	for _, l := range strings.Split(readme(t), "\n") {
		m := unknownBlockRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		checked++
		dir := t.TempDir()
		camp, err := os.ReadFile(filepath.Join("..", "..", "content", "demo", "mock-h100", "campaign.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		page := "---\ntitle: T\ncampaign: campaign.yaml\n---\n# T\n\n```perflab\nblock: " + m[1] + "\n```\n"
		if err := os.MkdirAll(filepath.Join(dir, "content", "r"), 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range map[string][]byte{"index.md": []byte(page), "campaign.yaml": camp} {
			if err := os.WriteFile(filepath.Join(dir, "content", "r", name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		err = render.Build(context.Background(), render.Options{Content: filepath.Join(dir, "content"), Results: filepath.Join(dir, "results"), Out: filepath.Join(dir, "site")})
		if err == nil {
			t.Fatalf("block %q builds", m[1])
		}
		got := unknownBlockRE.FindString(err.Error())
		if got != m[0] {
			t.Errorf("docs: %q\nbuild: %q", m[0], got)
		}
	}
	if checked < 2 {
		t.Errorf("%d unknown-block errors checked; build.md's and serve.md's were expected", checked)
	}
}
