package redact

import (
	"bytes"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   []string
		want []string
	}{
		{"api key as next word",
			[]string{"vllm", "serve", "Qwen/Qwen3-32B", "--api-key", "abc123", "-tp", "8"},
			[]string{"vllm", "serve", "Qwen/Qwen3-32B", "--api-key", Mask, "-tp", "8"}},
		{"api key with =",
			[]string{"trtllm-serve", "M", "--api_key=abc123"},
			[]string{"trtllm-serve", "M", "--api_key=" + Mask}},
		{"hf token flag and env assignment before the command",
			[]string{"HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz", "vllm", "serve", "M", "--hf-token", "xyz1"},
			[]string{"HF_TOKEN=" + Mask, "vllm", "serve", "M", "--hf-token", Mask}},
		// Token counts share the word "token" and must stay readable.
		{"token counts are not secrets",
			[]string{"vllm", "serve", "M", "--max-num-batched-tokens", "16384", "--max-tokens", "5", "--tokenizer", "t.json"},
			[]string{"vllm", "serve", "M", "--max-num-batched-tokens", "16384", "--max-tokens", "5", "--tokenizer", "t.json"}},
		// A secret flag followed by another flag has no value to hide.
		{"secret flag without a value",
			[]string{"x", "--api-key", "--port", "8000"},
			[]string{"x", "--api-key", "--port", "8000"}},
		{"token-shaped value under an innocent flag",
			[]string{"x", "--header", "sk-proj-0123456789abcdefghij"},
			[]string{"x", "--header", Mask}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Args(tc.in); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestSecretName(t *testing.T) {
	for name, want := range map[string]bool{
		"HF_TOKEN": true, "HUGGING_FACE_HUB_TOKEN": true, "OPENAI_API_KEY": true, "AWS_SECRET_ACCESS_KEY": true,
		"MY_SECRET_THING": true, "DB_PASSWORD": true, "--api-key": true, "--hf-token": true, "WANDB_KEY": true,
		"CUDA_VISIBLE_DEVICES": false, "VLLM_USE_V1": false, "--max-num-batched-tokens": false,
		"--tokenizer": false, "MAX_TOKENS": false, "--port": false, "NCCL_DEBUG": false,
	} {
		if got := SecretName(name); got != want {
			t.Errorf("SecretName(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestEnv(t *testing.T) {
	in := map[string]string{"HF_TOKEN": "hf_x", "CUDA_VISIBLE_DEVICES": "0,1", "NOTE": "uses hf_abcdefghijklmnopqrstuvwxyz"}
	got := Env(in)
	want := map[string]string{"HF_TOKEN": Mask, "CUDA_VISIBLE_DEVICES": "0,1", "NOTE": "uses " + Mask}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v", got)
	}
	if in["HF_TOKEN"] != "hf_x" {
		t.Fatal("input modified")
	}
}

func TestString(t *testing.T) {
	r := New("s3cr3t-value", "ab") // "ab" is too short to hide
	for _, tc := range []struct{ in, want string }{
		{"loaded key s3cr3t-value ok", "loaded key " + Mask + " ok"},
		{"vllm serve M --api-key abc --port 8000", "vllm serve M --api-key " + Mask + " --port 8000"},
		{"HF_TOKEN=foo vllm serve M", "HF_TOKEN=" + Mask + " vllm serve M"},
		{"Authorization: Bearer abcdefgh12345678", "Authorization: Bearer " + Mask},
		{"token hf_ABCDEFGHIJKLMNOPQRSTUVWX seen", "token " + Mask + " seen"},
		// Prose and counts are left alone.
		{"max_num_batched_tokens=8192 about 12 tokens/s", "max_num_batched_tokens=8192 about 12 tokens/s"},
		{"the token is long", "the token is long"},
		{"ab cd", "ab cd"},
		// vLLM's result block: "-token" inside a word is no flag.
		{"---------------Inter-token Latency----------------\nMean ITL (ms):   9.21",
			"---------------Inter-token Latency----------------\nMean ITL (ms):   9.21"},
		{"-----Time per Output Token (excl. 1st token)------", "-----Time per Output Token (excl. 1st token)------"},
		{`"api_key": "abc123"`, `"api_key": "` + Mask + `"`},
		{"export HF_TOKEN=hf_x; run", "export HF_TOKEN=" + Mask + "; run"},
		// A vocabulary token's number (llama.cpp's load log) is no
		// secret; a word after "token:" and a numeric HF_TOKEN still are.
		{"load: control token: 151660 '<|fim_middle|>' is not marked as EOG", "load: control token: 151660 '<|fim_middle|>' is not marked as EOG"},
		{"token: abc123", "token: " + Mask},
		{"HF_TOKEN: 123456", "HF_TOKEN: " + Mask},
	} {
		if got := r.String(tc.in); got != tc.want {
			t.Errorf("String(%q)\n got  %q\n want %q", tc.in, got, tc.want)
		}
	}
}

func TestWriterRedactsAcrossWrites(t *testing.T) {
	var buf bytes.Buffer
	w := New("topsecretvalue").Writer(&buf)
	// The secret arrives split across two writes; lines are redacted whole.
	for _, p := range []string{"INFO starting with key tops", "ecretvalue\nINFO ready\npartial --api-key zzz"} {
		if _, err := w.Write([]byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	if strings.Contains(buf.String(), "partial") {
		t.Fatal("partial line written before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := "INFO starting with key " + Mask + "\nINFO ready\npartial --api-key " + Mask
	if buf.String() != want {
		t.Fatalf("got %q\nwant %q", buf.String(), want)
	}
}

func TestArgValues(t *testing.T) {
	argv := []string{"HF_TOKEN=hf-inline-1", "vllm", "serve", "M", "--api-key", "token-abc123",
		"--hf-token=xyz9", "--max-num-batched-tokens", "16384", "--api-key", "--port", "8000", "--tokenizer", "t.json"}
	want := []string{"hf-inline-1", "token-abc123", "xyz9"}
	if got := ArgValues(argv); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	// The point of ArgValues: an engine echoing its own argv in another
	// shape (vLLM: non-default args: {'api_key': ['token-abc123']}) is
	// redacted once the values are known.
	line := `non-default args: {'model_tag': 'M', 'api_key': ['token-abc123']}`
	if got := New(ArgValues(argv)...).String(line); strings.Contains(got, "token-abc123") {
		t.Fatalf("redacted line still holds the key: %s", got)
	}
}

func TestURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8000", "http://127.0.0.1:8000"},
		{"https://admin:hunter2-pw@gpustack.example.com/v1", "https://admin:" + Mask + "@gpustack.example.com/v1"},
		{"https://svc.example.com/v1?api_key=abc12345&team=ml", "https://svc.example.com/v1?api_key=" + Mask + "&team=ml"},
		{"https://user@svc.example.com", "https://user@svc.example.com"}, // a user name is no secret
		{"not a url: %zz", "not a url: %zz"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	vs := URLValues("https://admin:hunter2-pw@h/v1?api_key=abc12345&team=ml")
	if !slices.Contains(vs, "hunter2-pw") || !slices.Contains(vs, "abc12345") || slices.Contains(vs, "ml") {
		t.Fatalf("URLValues = %q", vs)
	}
}

// TestWriterLongLineKeepsSecretWhole: a line longer than maxLine (a
// progress bar redrawn with carriage returns, a huge argument dump) is
// written in pieces; a known secret must not be cut between two pieces,
// where neither would match it.
func TestWriterLongLineKeepsSecretWhole(t *testing.T) {
	const secret = "token-abc123-longer-value"
	var out bytes.Buffer
	w := New(secret).Writer(&out)
	// Writes of 1000 bytes: the first oversize flush comes at 66,000
	// bytes; the secret spans that point.
	at := 66000 - 10
	data := strings.Repeat("a ", at/2) + secret + " " + strings.Repeat("b ", 3000)
	for i := 0; i < len(data); i += 1000 {
		if _, err := w.Write([]byte(data[i:min(i+1000, len(data))])); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if strings.Contains(out.String(), secret[:9]) || !strings.Contains(out.String(), Mask) {
		i := strings.Index(out.String(), secret[:9])
		t.Fatalf("secret split or kept: …%s…", out.String()[max(0, i-20):min(out.Len(), i+40)])
	}
	if out.Len() != len(data)-len(secret)+len(Mask) {
		t.Fatalf("wrote %d bytes, want %d", out.Len(), len(data)-len(secret)+len(Mask))
	}
}
