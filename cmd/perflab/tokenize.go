package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/perflab/perflab/collect/benchrun"
	"github.com/perflab/perflab/collect/dataset"
	"github.com/perflab/perflab/collect/dataset/tokenizer"
)

// runTokenize counts the tokens of stdin: perflab tokenize --tokenizer PATH [--ids].
func runTokenize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return tokenizeMain(ctx, args, os.Stdin, stdout, stderr)
}

func tokenizeMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("tokenize", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: perflab tokenize --tokenizer PATH|server [--ids] [--special] [--chat] < text\n\n"+
			"Prints the token count of stdin, or with --ids the ids as a JSON array.")
		fs.PrintDefaults()
	}
	tokPath := fs.String("tokenizer", "", "tokenizer.json file or model directory; or \"server\" to ask --base-url's /tokenize")
	ids := fs.Bool("ids", false, "print the ids as a JSON array instead of the count")
	special := fs.Bool("special", false, "add the special tokens the tokenizer's post-processor adds (e.g. BOS), as Python's tokenizer(text) does")
	chat := fs.Bool("chat", false, "count stdin as one user message of the chat template (fails with \"unknown\" for templates we cannot render exactly)")
	baseURL := fs.String("base-url", "", "with --tokenizer server: the engine's root URL")
	model := fs.String("model", "", "with --tokenizer server: the model name to send")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return usageError("tokenize: %v", err)
	}
	if fs.NArg() > 0 {
		return usageError("tokenize: unexpected argument %q (text is read from stdin)", fs.Arg(0))
	}
	if *tokPath == "" {
		return usageError("tokenize: --tokenizer is required")
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return fmt.Errorf("tokenize: read stdin: %w", err)
	}
	text := string(data)

	var out []int
	switch {
	case *tokPath == "server":
		if *baseURL == "" {
			return usageError("tokenize: --tokenizer server needs --base-url")
		}
		if *chat {
			return usageError("tokenize: --chat needs a tokenizer.json")
		}
		// OPENAI_API_KEY, as perflab bench sends it. herr, not err: a
		// shadowing err here would drop EncodeContext's error below.
		headers, herr := benchHeaders(nil)
		if herr != nil {
			return herr
		}
		st := dataset.NewServerTokenizer(*baseURL, *model, benchrun.Client(headers))
		out, err = st.EncodeContext(ctx, text, *special)
	default:
		var tk *tokenizer.Tokenizer
		if tk, err = tokenizer.Load(*tokPath); err != nil {
			return fmt.Errorf("tokenize: %w", err)
		}
		if *chat {
			if text, err = tk.ChatPrompt(text); err != nil {
				return fmt.Errorf("tokenize: %w", err)
			}
		}
		out, err = tk.EncodeSpecial(text, *special)
	}
	if err != nil {
		return fmt.Errorf("tokenize: %w", err)
	}
	if !*ids {
		_, err = fmt.Fprintln(stdout, len(out))
		return err
	}
	if out == nil {
		out = []int{}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s\n", b)
	return err
}
