package ingest

import (
	"regexp"
	"strings"

	"github.com/perflab/perflab/collect/schema"
)

// FormatSGLangText is SGLang's `python3 -m sglang.bench_serving` text
// block: the same header and TTFT/TPOT sections as vLLM's, plus a Backend
// row, "Traffic request rate", "Max request concurrency" (a number or "not
// set"), token counts by kind, an End-to-End Latency section (Mean, Median,
// P90, P99 E2E Latency in ms) and an "Inter-Token Latency" section with P95
// and Max rows. Its metrics have vLLM's definitions (TPOT excludes the first
// token), and it is recorded as SGLang's tool, never as guidellm's.
const FormatSGLangText = "sglang-text"

// SGLangTool is the tool name of results read from SGLang's block.
const SGLangTool = "sglang bench_serving"

var (
	// E2E latency rows of SGLang's End-to-End Latency section.
	reSGLangE2E = regexp.MustCompile(`^(Mean|Median|Std|P(\d+(?:\.\d+)?)) E2E Latency \(ms\)$`)
	// SGLang prints the maximum ITL; it is recorded as the 100th percentile.
	reSGLangMax = regexp.MustCompile(`^Max (TTFT|TPOT|ITL|E2EL) \(ms\)$`)
)

// sglangSections are SGLang's spellings of section titles.
var sglangSections = map[string]bool{
	"End-to-End Latency":  true,
	"Inter-Token Latency": true,
}

// sglangRow reads the rows only SGLang's block has. handled is false for
// rows it does not know; those go on to the vLLM rows.
func (b *textBlock) sglangRow(name string, line int, label, val string, s *schema.Summary, stats map[string]*schema.Stats) (handled bool, err error) {
	if m := reSGLangE2E.FindStringSubmatch(label); m != nil {
		b.sglang = true
		v, ok, err := number(name, line, label, val)
		if err != nil {
			return true, err
		}
		if ok {
			addStat(stats, "E2EL", m[1], m[2], v)
		}
		return true, nil
	}
	if m := reSGLangMax.FindStringSubmatch(label); m != nil {
		b.sglang = true
		v, ok, err := number(name, line, label, val)
		if err != nil {
			return true, err
		}
		if ok {
			addStat(stats, m[1], "P", "100", v)
		}
		return true, nil
	}
	switch label {
	case "Backend":
		b.sglang = true
		b.setMeta("sglang_backend", val)
	case "Traffic request rate":
		b.sglang = true
		if strings.EqualFold(val, "inf") {
			zero := 0.0
			b.requestRate = &zero
			return true, nil
		}
		v, ok, err := number(name, line, label, val)
		if err != nil {
			return true, err
		}
		if ok {
			b.requestRate = &v
		}
	case "Max request concurrency":
		b.sglang = true
		if val == "not set" {
			return true, nil
		}
		n, err := integer(name, line, label, val)
		if err != nil {
			return true, err
		}
		s.MaxConcurrency = schema.I(n)
	case "Total throughput (tok/s)": // older SGLang's name of the total token throughput
		b.sglang = true
		b.hasTotal = true
		s.TotalTokenThroughput, err = required(name, line, label, val)
		return true, err
	case "Concurrency":
		b.sglang = true
		b.setMeta("sglang_concurrency", val)
	case "Accept length":
		b.sglang = true
		b.setMeta("sglang_accept_length", val)
	case "Total input text tokens", "Total input vision tokens", "Total generated tokens (retokenized)", "Input token throughput (tok/s)":
		b.sglang = true
	default:
		return false, nil
	}
	return true, nil
}

func (b *textBlock) setMeta(k, v string) {
	if b.meta == nil {
		b.meta = map[string]string{}
	}
	b.meta[k] = v
}
