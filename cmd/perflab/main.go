// Command perflab runs LLM-serving benchmark campaigns and publishes the
// results as a performance-lab website. See README.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// errUsage marks a command-line mistake: exit status 2.
var errUsage = errors.New("usage")

// usageError wraps a message as a usage error.
func usageError(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errUsage, fmt.Sprintf(format, a...))
}

// inputError marks input that could not be read (perflab check: a page,
// its campaign or its results): exit status 3, so that a CI job can tell
// it from 1, a failure or findings.
type inputError struct{ error }

func (e inputError) Unwrap() error { return e.error }

// command is one subcommand. Each lives in its own file.
type command struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

func commands() map[string]command {
	return map[string]command{
		"bench":    {"benchmark an OpenAI-compatible server (vllm bench serve compatible)", runBench},
		"mock":     {"run a simulated OpenAI-compatible engine", runMock},
		"tokenize": {"count or list the tokens of stdin with a tokenizer.json", runTokenize},
		"collect":  {"run a benchmark campaign against real engines", runCollect},
		"import":   {"import vllm bench serve text or JSON output, guidellm and llm-d benchmark reports as results", runImport},
		"export":   {"write results as llm-d benchmark reports (v0.2)", runExport},
		"diff":     {"compare two rounds or result sets (benchstat-style), gate CI on regressions", runDiff},
		"migrate":  {"bring existing lab pages over as perflab projects, inferring their campaigns", runMigrate},
		"build":    {"render content/ and results/ into the static site", runBuild},
		"check":    {"find numbers on pages that disagree with their own data", runCheck},
		"serve":    {"preview the site with live reload", runServe},
		"publish":  {"publish the site to GitHub Pages", runPublish},
	}
}

func main() {
	sigs := []os.Signal{os.Interrupt, syscall.SIGTERM}
	// A hangup (the ssh session of a long collect drops) stops work as
	// Ctrl-C does: the engine is stopped, not orphaned. Under nohup
	// SIGHUP stays ignored: Notify would un-ignore it.
	if !signal.Ignored(syscall.SIGHUP) {
		sigs = append(sigs, syscall.SIGHUP)
	}
	ctx, stop := signal.NotifyContext(context.Background(), sigs...)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

func exitCode(err error, stderr io.Writer) int {
	switch {
	case err == nil:
		return 0
	case errors.Is(err, errUsage):
		fmt.Fprintln(stderr, "perflab:", err)
		return 2
	case errors.As(err, new(inputError)):
		fmt.Fprintln(stderr, "perflab:", err)
		return 3
	default:
		fmt.Fprintln(stderr, "perflab:", err)
		return 1
	}
}

// run is main without the process: testable.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cmds := commands()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout, cmds)
		if len(args) == 0 {
			return usageError("no command given")
		}
		return nil
	}
	c, ok := cmds[args[0]]
	if !ok {
		printUsage(stderr, cmds)
		return usageError("unknown command %q", args[0])
	}
	return c.run(ctx, args[1:], stdout, stderr)
}

// parseInterspersed parses args with fs, flags allowed after the
// positional arguments too (perflab import a.txt --into DIR), and returns
// the positional arguments; -h gives flag.ErrHelp.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos, args = append(pos, args[0]), args[1:]
	}
}

func printUsage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: perflab COMMAND [flags]\n\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'perflab COMMAND -h' for a command's flags.")
}
