package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

const tinyDir = "../../collect/dataset/tokenizer/testdata/tiny"

func TestTokenize(t *testing.T) {
	tk, err := tokenizer.Load(tinyDir)
	if err != nil {
		t.Fatal(err)
	}
	text := "Hello world, 你好 <|im_end|>\n"
	want, _ := tk.Encode(text)
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"count", []string{"--tokenizer", tinyDir}, strconv.Itoa(len(want)) + "\n"},
		{"ids", []string{"--tokenizer", tinyDir, "--ids"}, jsonInts(want) + "\n"},
		{"file path works too", []string{"--tokenizer", filepath.Join(tinyDir, "tokenizer.json"), "--ids"}, jsonInts(want) + "\n"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		if err := tokenizeMain(context.Background(), c.args, strings.NewReader(text), &out, &errb); err != nil {
			t.Fatalf("%s: %v (%s)", c.name, err, errb.String())
		}
		if out.String() != c.want {
			t.Errorf("%s: got %q, want %q", c.name, out.String(), c.want)
		}
	}
	var out bytes.Buffer
	if err := tokenizeMain(context.Background(), []string{"--tokenizer", tinyDir, "--ids"}, strings.NewReader(""), &out, &out); err != nil || out.String() != "[]\n" {
		t.Errorf("empty stdin: %q, %v", out.String(), err)
	}
}

func TestTokenizeErrors(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		stdin string
		usage bool
		want  string
	}{
		{"no tokenizer", nil, "x", true, "--tokenizer is required"},
		{"extra argument", []string{"--tokenizer", tinyDir, "text"}, "x", true, "unexpected argument"},
		{"unknown flag", []string{"--frob"}, "x", true, "frob"},
		{"server without url", []string{"--tokenizer", "server"}, "x", true, "--base-url"},
		{"missing file", []string{"--tokenizer", "/nonexistent/tok"}, "x", false, "nonexistent"},
		{"invalid UTF-8", []string{"--tokenizer", tinyDir}, "\xff", false, "UTF-8"},
		{"chat template unknown", []string{"--tokenizer", tinyDir, "--chat"}, "x", false, "unknown"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		err := tokenizeMain(context.Background(), c.args, strings.NewReader(c.stdin), &out, &errb)
		if err == nil || errors.Is(err, errUsage) != c.usage || !strings.Contains(err.Error()+errb.String(), c.want) {
			t.Errorf("%s: err %v (usage %v), want usage=%v containing %q", c.name, err, errors.Is(err, errUsage), c.usage, c.want)
		}
	}
}

// TestTokenizeChatQwen3 counts a chat prompt with the real Qwen3 file.
func TestTokenizeChatQwen3(t *testing.T) {
	dir := "../../.cache/tokenizers/qwen3"
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("SKIP: qwen3 tokenizer not installed (%v); run `make deps`", err)
	}
	var plain, chat bytes.Buffer
	if err := tokenizeMain(context.Background(), []string{"--tokenizer", dir}, strings.NewReader("Hello!"), &plain, &plain); err != nil {
		t.Fatal(err)
	}
	if err := tokenizeMain(context.Background(), []string{"--tokenizer", dir, "--chat"}, strings.NewReader("Hello!"), &chat, &chat); err != nil {
		t.Fatal(err)
	}
	if plain.String() != "2\n" || chat.String() != "10\n" {
		t.Errorf("plain %q chat %q, want 2 and 10 (ChatML adds 8)", plain.String(), chat.String())
	}
}

func jsonInts(xs []int) string {
	b, _ := json.Marshal(xs)
	return string(b)
}

// TestTokenizeBinary runs the real perflab binary: stdin in, count out,
// exit status 2 for a usage error.
func TestTokenizeBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "perflab")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "tokenize", "--tokenizer", tinyDir, "--ids")
	cmd.Stdin = strings.NewReader("Hello world")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	tk, _ := tokenizer.Load(tinyDir)
	want, _ := tk.Encode("Hello world")
	if strings.TrimSpace(string(out)) != jsonInts(want) {
		t.Errorf("stdout %q, want %s", out, jsonInts(want))
	}
	cmd = exec.Command(bin, "tokenize")
	var exitErr *exec.ExitError
	if err := cmd.Run(); !errors.As(err, &exitErr) || exitErr.ExitCode() != 2 {
		t.Errorf("missing --tokenizer: %v, want exit status 2", err)
	}
}
