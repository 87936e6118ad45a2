package dataset_test

import (
	"context"
	"fmt"

	"github.com/perflab/perflab/collect/dataset"
)

func ExampleRandom() {
	tok, err := dataset.Load("tokenizer/testdata/tiny")
	if err != nil {
		panic(err)
	}
	samples, err := dataset.Random(tok, dataset.RandomConfig{NumPrompts: 3, InputLen: 32, OutputLen: 16, RangeRatio: 0.25, Seed: 42})
	if err != nil {
		panic(err)
	}
	for _, s := range samples {
		n, _ := tok.Count(s.Prompt)
		fmt.Println(s.PromptLen, n, s.OutputLen >= 12 && s.OutputLen <= 20)
	}
	// Output:
	// 25 25 true
	// 37 37 true
	// 35 35 true
}

func ExampleShareGPT() {
	tok, err := dataset.Load("tokenizer/testdata/tiny")
	if err != nil {
		panic(err)
	}
	samples, err := dataset.ShareGPT(context.Background(), tok, "testdata/sharegpt-sample.json", dataset.ShareGPTConfig{NumPrompts: 2})
	if err != nil {
		panic(err)
	}
	for _, s := range samples {
		fmt.Printf("%d tokens, max_tokens %d: %.40q\n", s.PromptLen, s.OutputLen, s.Prompt)
	}
	// Output:
	// 98 tokens, max_tokens 205: "What is batch size and when should I use"
	// 40 tokens, max_tokens 207: "Why does batch size matter for throughpu"
}
