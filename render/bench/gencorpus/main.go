// Command gencorpus writes the build-benchmark corpus (package corpus):
//
//	go run ./render/bench/gencorpus -out DIR -copies 33
//
// writes DIR/content with 33 copies of a 28-page lab (924 pages) made from
// the seed pages in results/*/src/seed.md.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/perflab/perflab/render/corpus"
)

func main() {
	out := flag.String("out", "", "directory to write content/ into (required; emptied first)")
	copies := flag.Int("copies", 33, "copies of the 28-page lab")
	seeds := flag.String("seeds", "results/*/src/seed.md", "glob of the seed pages")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "gencorpus: -out is required")
		os.Exit(2)
	}
	files, err := filepath.Glob(*seeds)
	if err == nil && len(files) == 0 {
		err = fmt.Errorf("no seed page matches %s", *seeds)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	sort.Strings(files)
	var texts [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gencorpus:", err)
			os.Exit(1)
		}
		texts = append(texts, b)
	}
	if err := os.RemoveAll(filepath.Join(*out, "content")); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	n, err := corpus.Write(*out, *copies, texts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(1)
	}
	fmt.Printf("%d pages in %s\n", n, filepath.Join(*out, "content"))
}
