package mock_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/mock"
)

// The mock's tokenizer is a dataset.Tokenizer, so dataset code can size
// prompts with it in-process.
var _ dataset.Tokenizer = mock.Tokenizer{}

func ExampleStart() {
	ctx := context.Background()
	r, err := mock.Start(ctx, mock.Config{TTFT: 20 * time.Millisecond, ITL: 5 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	body := `{"model":"mock","prompt":"Hello there","max_tokens":3,"ignore_eos":true,` +
		`"stream":true,"stream_options":{"include_usage":true}}`
	resp, err := http.Post(r.URL+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var chunk struct {
			Choices []struct{ Text string }
			Usage   *struct {
				PromptTokens     int `json:"prompt_tokens"`
				CompletionTokens int `json:"completion_tokens"`
			} `json:"usage"`
		}
		if data == "[DONE]" || json.Unmarshal([]byte(data), &chunk) != nil {
			fmt.Println(data)
			continue
		}
		if len(chunk.Choices) > 0 {
			fmt.Printf("token %q\n", chunk.Choices[0].Text)
		} else {
			fmt.Printf("usage %+v\n", *chunk.Usage)
		}
	}
	// Output:
	// token " kcg"
	// token " uxs"
	// token " qdg"
	// usage {PromptTokens:5 CompletionTokens:3}
	// [DONE]
}

func ExampleTokenizer() {
	var tok mock.Tokenizer
	ids, _ := tok.Encode("The quick brown fox")
	text, _ := tok.Decode(ids[:4])
	fmt.Println(len(ids), ids)
	fmt.Printf("%q\n", text)
	// Output:
	// 7 [84 18720 12302 18596 2090 19119 4725]
	// "The quick"
}
