// Command gpucheck writes the summary of make gpu-check (.ci/gpu-check.sh)
// from what the script recorded in its directory:
//
//	go run ./collect/telemetry/gpucheck -dir .cache/gpu-check
//
// The script records, under DIR: gpu.txt and gpu.rc (nvidia-smi -L and its
// status); build.rc (go build of perflab); gpu-info.json, gpu-info.err and
// gpu-info.rc (perflab collect --gpu-info); collect.log and collect.rc
// (the mock campaign with the NVML sampler on), its results under
// results/ and its built site under site/ (site.rc); bench.txt and
// bench.rc (BenchmarkClientEfficiency, perflab bench's client and the
// floor reader at 1,024 and 4,096 streams). A step the script did not
// reach has no files and is reported as not run.
//
// It writes DIR/summary.txt and the same to stdout, and exits 0 when every
// check passed, 1 when one failed, 2 when the machine has no NVIDIA GPU
// (nothing was checked; the summary says so).
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

func main() {
	dir := flag.String("dir", ".cache/gpu-check", "directory the gpu-check script recorded into")
	flag.Parse()
	var b strings.Builder
	host, _ := os.Hostname()
	fmt.Fprintf(&b, "perflab GPU check — %s on %s\n", time.Now().UTC().Format("2006-01-02 15:04 UTC"), host)
	code := summarize(&b, *dir)
	out := b.String()
	fmt.Print(out)
	if err := os.WriteFile(filepath.Join(*dir, "summary.txt"), []byte(out), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gpucheck:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}
