package collect

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// progress draws the live view on a terminal: one line, redrawn in place,
// with the run (i/n), experiment and profile, what the benchmark reports
// (requests done) with the output tokens/s and the run's ETA derived from
// it, and the campaign's ETA from the mean duration of the runs finished
// so far. A nil *progress draws
// nothing.
type progress struct {
	w     io.Writer
	total int

	mu       sync.Mutex
	done     int
	runStart time.Time
	spent    time.Duration // summed duration of finished runs
	label    string
	detail   string
	// benchStart is when the benchmark began; outputLen the profile's
	// output length (for the tokens/s estimate).
	benchStart time.Time
	outputLen  int
	// runLeft is the run's remaining time estimated from the benchmark's
	// progress (valid when hasRunLeft), as of runLeftAt.
	runLeft    time.Duration
	runLeftAt  time.Time
	hasRunLeft bool
	// now is the clock (time.Now; tests set it).
	now     func() time.Time
	stop    chan struct{}
	stopped chan struct{}
}

func newProgress(w io.Writer, total int) *progress {
	if w == nil {
		return nil
	}
	p := &progress{w: w, total: total, now: time.Now, stop: make(chan struct{}), stopped: make(chan struct{})}
	go p.tick()
	return p
}

// tick redraws every second so that a long engine start shows time passing.
func (p *progress) tick() {
	defer close(p.stopped)
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			p.draw()
			p.mu.Unlock()
		}
	}
}

func (p *progress) begin(r Run, what string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	label := fmt.Sprintf("[%d/%d] %s / %s", p.done+1, p.total, r.Experiment.ID, r.Profile.ID)
	if label != p.label {
		p.runStart = p.now()
		p.hasRunLeft = false
	}
	p.label, p.detail = label, what
	p.benchStart, p.outputLen = p.now(), r.Profile.OutputLen
	p.draw()
}

func (p *progress) end(r Run) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	p.spent += p.now().Sub(p.runStart)
	p.hasRunLeft = false
	p.label, p.detail = "", ""
	fmt.Fprint(p.w, "\r\033[K")
}

// writer receives the benchmark's own progress lines.
func (p *progress) writer() io.Writer {
	if p == nil {
		return nil
	}
	return progressWriter{p}
}

type progressWriter struct{ p *progress }

// benchLine matches the benchmark core's "12/100 requests done".
var benchLine = regexp.MustCompile(`(\d+)/(\d+) requests`)

func (pw progressWriter) Write(b []byte) (int, error) {
	s := strings.TrimRight(string(b), "\r\n ")
	if i := strings.LastIndexAny(s, "\r\n"); i >= 0 {
		s = s[i+1:]
	}
	if s = strings.TrimSpace(s); s == "" {
		return len(b), nil
	}
	p := pw.p
	p.mu.Lock()
	defer p.mu.Unlock()
	p.detail = strings.TrimPrefix(s, "bench: ")
	if m := benchLine.FindStringSubmatch(s); m != nil {
		done, _ := strconv.Atoi(m[1])
		total, _ := strconv.Atoi(m[2])
		if el := p.now().Sub(p.benchStart).Seconds(); done > 0 && el > 0 {
			// Output tokens/s from the requests done and the profile's
			// output length: an estimate, until the run's summary.
			p.detail += fmt.Sprintf("  ≈%.0f out tok/s", float64(done*p.outputLen)/el)
			if total > done {
				eta := time.Duration(float64(total-done) / (float64(done) / el) * float64(time.Second))
				p.detail += fmt.Sprintf("  run ETA %v", eta.Round(time.Second))
			}
			p.runLeft, p.runLeftAt, p.hasRunLeft = time.Duration(float64(total-done)/(float64(done)/el)*float64(time.Second)), p.now(), true
		}
	}
	p.draw()
	return len(b), nil
}

// draw writes the line; the caller holds mu.
func (p *progress) draw() {
	if p.label == "" {
		return
	}
	now := p.now()
	elapsed := now.Sub(p.runStart).Truncate(time.Second)
	line := fmt.Sprintf("%s  %s  %v", p.label, p.detail, elapsed)
	// The campaign's ETA: what is left of this run (from the benchmark's
	// rate once it reports, else the mean run less the time spent), plus
	// the mean run for each run after it.
	var mean time.Duration
	if p.done > 0 {
		mean = p.spent / time.Duration(p.done)
	}
	cur, known := max(mean-now.Sub(p.runStart), 0), p.done > 0
	if p.hasRunLeft {
		cur, known = max(p.runLeft-now.Sub(p.runLeftAt), 0), known || p.total-p.done == 1
	}
	if known {
		left := cur + mean*time.Duration(p.total-p.done-1)
		line += fmt.Sprintf("  campaign ETA %v", left.Truncate(time.Second))
	}
	fmt.Fprintf(p.w, "\r\033[K%s", line)
}

func (p *progress) close() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.stopped
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.label != "" {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// logWriter returns w wrapped so that log lines written while the view is
// shown clear it first and redraw it after: the two share the terminal.
func (p *progress) logWriter(w io.Writer) io.Writer {
	if p == nil {
		return w
	}
	return logWriter{p, w}
}

type logWriter struct {
	p *progress
	w io.Writer
}

func (lw logWriter) Write(b []byte) (int, error) {
	lw.p.mu.Lock()
	defer lw.p.mu.Unlock()
	if lw.p.label != "" {
		fmt.Fprint(lw.p.w, "\r\033[K")
	}
	n, err := lw.w.Write(b)
	lw.p.draw()
	return n, err
}
