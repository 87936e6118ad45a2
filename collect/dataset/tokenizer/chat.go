package tokenizer

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// ErrUnknownChatTemplate says that the tokenizer's chat template is not
// one ChatPrompt can render exactly, so the chat endpoint's token overhead
// is unknown. Callers report it as unknown; they never guess.
var ErrUnknownChatTemplate = errors.New("chat template not recognised: chat prompt token count unknown")

// knownTemplate renders one user message followed by the generation
// prompt (messages=[{"role":"user","content":c}], add_generation_prompt=True,
// no tools, no extra template variables), exactly as the Jinja template
// with that SHA-256 does. We do not interpret Jinja: each entry was
// written by reading its template and is checked against the JavaScript
// reference's apply_chat_template in the golden tests.
type knownTemplate struct {
	name   string
	render func(t *Tokenizer, content string) string
}

var knownTemplates = map[string]knownTemplate{
	// Qwen3 (ChatML; no default system prompt; enable_thinking unset).
	"87a2728cb8dc9fe424d624542f6060ec05a1d285ebbec578bb078900e33396b5": {
		name: "qwen3-chatml",
		render: func(_ *Tokenizer, c string) string {
			return "<|im_start|>user\n" + c + "<|im_end|>\n<|im_start|>assistant\n"
		},
	},
	// Llama 3 (the short template without a default system message):
	// bos_token, header, content|trim, <|eot_id|>, assistant header.
	"b48c47f6443892716176eb200bf4ef108f64e06ca26ed0fa8ebc0a4b3992fcb2": {name: "llama3", render: renderLlama3},
	// Llama 3.1 in the same short form; the assistant header is behind
	// add_generation_prompt, which the server sets.
	"ba03a121d097859c7b5b9cd03af99aafe95275210d2876f642ad9929a150f122": {name: "llama3.1", render: renderLlama3},
	// Gemma style: bos_token, <start_of_turn>user, content|trim,
	// <end_of_turn>, <start_of_turn>model.
	"ecd6ae513fe103f0eb62e8ab5bfa8d0fe45c1074fa398b089c93a7e70c15cfd6": {
		name: "gemma",
		render: func(t *Tokenizer, c string) string {
			return t.bosToken + "<start_of_turn>user\n" + strings.TrimFunc(c, pyIsSpace) + "<end_of_turn>\n<start_of_turn>model\n"
		},
	},
	// DeepSeek V3: bos_token, the (empty) system prompt, <｜User｜>content,
	// <｜Assistant｜>.
	"3b8267e54b67df6500f231ffa969955cc9d26b3444a291ced4eb96ca7d3ca1ea": {
		name: "deepseek-v3",
		render: func(t *Tokenizer, c string) string {
			return t.bosToken + "<｜User｜>" + c + "<｜Assistant｜>"
		},
	},
}

func renderLlama3(t *Tokenizer, c string) string {
	return t.bosToken + "<|start_header_id|>user<|end_header_id|>\n\n" +
		strings.TrimFunc(c, pyIsSpace) + "<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
}

// pyIsSpace is Python's str.isspace for one character (what Jinja's trim
// strips): Unicode whitespace plus the separators U+001C..U+001F.
func pyIsSpace(r rune) bool { return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f) }

// ChatTemplateSHA256 is the hex SHA-256 of the chat template ("" if none).
func (t *Tokenizer) ChatTemplateSHA256() string {
	if t.chatTemplate == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(t.chatTemplate))
	return hex.EncodeToString(sum[:])
}

// ChatTemplateName names the recognised chat template, or "" if the
// template is absent or not recognised.
func (t *Tokenizer) ChatTemplateName() string {
	if k, ok := knownTemplates[t.ChatTemplateSHA256()]; ok {
		return k.name
	}
	return ""
}

// ChatPrompt renders content as a single user message with the generation
// prompt, as an OpenAI-compatible server does for /v1/chat/completions. It
// returns an error wrapping ErrUnknownChatTemplate unless the template is
// one we render exactly.
func (t *Tokenizer) ChatPrompt(content string) (string, error) {
	if t.chatTemplate == "" {
		return "", fmt.Errorf("tokenizer: no chat_template in tokenizer_config.json: %w", ErrUnknownChatTemplate)
	}
	k, ok := knownTemplates[t.ChatTemplateSHA256()]
	if !ok {
		return "", fmt.Errorf("tokenizer: chat template sha256 %s: %w", t.ChatTemplateSHA256(), ErrUnknownChatTemplate)
	}
	return k.render(t, content), nil
}

// CountChat is the prompt token count the server sees for content sent to
// the chat endpoint: the rendered template encoded without added special
// tokens (the template carries its own).
func (t *Tokenizer) CountChat(content string) (int, error) {
	p, err := t.ChatPrompt(content)
	if err != nil {
		return 0, err
	}
	return t.Count(p)
}
