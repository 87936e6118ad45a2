package layout

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"regexp"

	chromahtml "github.com/alecthomas/chroma/v2/formatters/html"
	"github.com/alecthomas/chroma/v2/styles"
)

// Assets are the code-highlighting stylesheet and the files under
// the templates' assets/.
func Assets(assets fs.FS) ([]File, error) {
	css, err := chromaCSS()
	if err != nil {
		return nil, err
	}
	files := []File{{Path: "assets/chroma.css", Data: css}}
	err = fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(assets, p)
		if err != nil {
			return err
		}
		files = append(files, File{Path: p, Data: data})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("render: assets: %w", err)
	}
	return files, nil
}

// SearchFiles are the search index's files (the home page's entry first,
// then every page's in order). Builder writes them too.
func SearchFiles(index []SearchEntry) ([]File, error) {
	return SearchFilesEncoded(index, nil)
}

// SearchFilesEncoded is SearchFiles where encoded[i], when there and not
// nil, is index[i] as json.Marshal encodes it: the index is then those
// bytes between brackets and commas, as json.Marshal writes a slice.
func SearchFilesEncoded(index []SearchEntry, encoded [][]byte) ([]File, error) {
	n := 3 + len(index) // brackets, commas and search.json's newline
	for _, e := range encoded {
		n += len(e)
	}
	idx := make([]byte, 0, n)
	idx = append(idx, '[')
	for i, e := range index {
		if i > 0 {
			idx = append(idx, ',')
		}
		if i < len(encoded) && encoded[i] != nil {
			idx = append(idx, encoded[i]...)
			continue
		}
		js, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("render: search index: %w", err)
		}
		idx = append(idx, js...)
	}
	idx = append(idx, ']')
	// search.js carries the same index for pages opened from the disk,
	// where fetching search.json is not allowed.
	js := append(append([]byte("window.perflabSearch="), idx...), ";\n"...)
	return []File{{Path: "search.json", Data: append(idx, '\n')}, {Path: "search.js", Data: js}}, nil
}

// chromaCSS is the code-highlighting stylesheet: github for the light
// theme, github-dark under [data-theme="dark"].
func chromaCSS() ([]byte, error) {
	var buf bytes.Buffer
	f := chromahtml.New(chromahtml.WithClasses(true))
	if err := f.WriteCSS(&buf, styles.Get("github")); err != nil {
		return nil, fmt.Errorf("render: chroma css: %w", err)
	}
	var dark bytes.Buffer
	if err := f.WriteCSS(&dark, styles.Get("github-dark")); err != nil {
		return nil, fmt.Errorf("render: chroma css: %w", err)
	}
	d := regexp.MustCompile(`(?m)^(/\*[^*]*\*/ )?\.`).ReplaceAll(dark.Bytes(), []byte(`$1[data-theme="dark"] .`))
	buf.Write(d)
	// The page, not chroma, owns the code background.
	out := regexp.MustCompile(`(\.(bg|chroma) \{[^}]*?)background-color: #[0-9a-fA-F]+;?`).ReplaceAll(buf.Bytes(), []byte(`$1`))
	return out, nil
}
