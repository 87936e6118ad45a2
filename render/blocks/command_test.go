package blocks

import "testing"

// TestWrapCommand: long serving commands break before each flag; a
// Python module launcher stays whole on the first line.
func TestWrapCommand(t *testing.T) {
	tests := []struct{ in, want string }{
		{"vllm serve Qwen/Qwen3-32B", "vllm serve Qwen/Qwen3-32B"},
		{"vllm serve Qwen/Qwen3.5-35B-A3B-FP8 --reasoning-parser=qwen3 --performance-mode=throughput --max-model-len=32768",
			"vllm serve Qwen/Qwen3.5-35B-A3B-FP8 \\\n    --reasoning-parser=qwen3 \\\n    --performance-mode=throughput \\\n    --max-model-len=32768"},
		// The 235B page showed "python3 \" then "-m sglang.launch_server \".
		{"python3 -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-Instruct-2507 --tp-size 8",
			"python3 -m sglang.launch_server \\\n    --model-path Qwen/Qwen3-235B-A22B-Instruct-2507 \\\n    --tp-size 8"},
		{"/usr/bin/python3.11 -m sglang.launch_server --model-path Qwen/Qwen3-235B-A22B-Instruct-2507 --tp-size 8",
			"/usr/bin/python3.11 -m sglang.launch_server \\\n    --model-path Qwen/Qwen3-235B-A22B-Instruct-2507 \\\n    --tp-size 8"},
	}
	for _, tt := range tests {
		if got := wrapCommand(tt.in); got != tt.want {
			t.Errorf("wrapCommand(%q) =\n%s\nwant\n%s", tt.in, got, tt.want)
		}
	}
}
