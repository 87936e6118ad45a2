package bench

import (
	"bufio"
	"container/heap"
	"context"
	"fmt"
	"github.com/perflab/perflab/collect/schema"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The client-efficiency point of issue 12: 1,024 streams × 10 ms ITL
// (about 100k token events/s), TTFT 50 ms, 256 tokens per stream, the
// server in its own process on one core, the client on the other.
const (
	effStreams = 1024 // the point; streams=256 is a lighter one for busy machines
	effTTFT    = 50 * time.Millisecond
	effITL     = 10 * time.Millisecond
	effTokens  = 256
)

// BenchmarkClientEfficiency runs the point above and reports what the
// client costs and adds, with perflab bench's own client (client=h1) and
// with its read path before the pollers (client=h1-rawconn: one goroutine
// per stream reading inside RawConn.Read, as on systems other than Linux),
// with net/http's (client=net-http, the client before h1Client), and the
// floor (client=floor, Linux): the cheapest reader of the same streams,
// one goroutine in epoll_wait reading each ready socket once, counting
// events and stamping them with one clock read per read(2), no HTTP or
// JSON parsing. The floor's CPU per event is what the kernel's read path
// (the copy, and the ACK each read sends, which loopback delivers into
// the server's socket on the client's CPU) and the wakeups cost here:
// what no client can save.
//
//	cpu-us/event        client CPU (user+sys, this process, measured phase) ÷ SSE events
//	cpu-us/read         the same ÷ network reads that returned stream data
//	reads/event         1 when every event arrived alone; less when the server
//	                    or the client fell behind and events shared a read
//	sleeps/event        the client's voluntary context switches (a thread went
//	                    to sleep to wait) per event: the wakeups it pays for,
//	                    counted by the kernel, so steadier than CPU time when
//	                    other work shares the machine
//	ttft-excess-ms      mean client TTFT − the server's 50 ms
//	ttft-excess-p99-ms  99th percentile of the same
//	itl-p50-ms, itl-p99-ms  the client's ITL (want 10 and close to it)
//	server-late-p50-ms, server-late-p99-ms  how late the server wrote events
//	                    against its own schedule (excess that is not the client's)
//	server-cpu-us/event the server's CPU per event
//	deliver-p50-ms, deliver-p99-ms  how long after the server wrote an event
//	                    the client stamped it (same machine, wall clocks)
//	ttft-deliver-ms     the same for first events, mean: the client's share
//	                    of ttft-excess after the server's schedule
//	ttft-server-read-ms mean time from the client's send stamp to the server's
//	                    first read of the request's bytes
//	ttft-server-start-ms  the same to the request parsed, when the server's
//	                    schedule (TTFT 50 ms) starts: ttft-excess ≈ this +
//	                    server-late + ttft-deliver
//
// Each metric is the median over the iterations. The server is this test
// binary in PERFLAB_PACED_SERVER mode, pinned with taskset to a CPU outside
// this process's set; pin the client yourself:
//
//	go test -c -o /tmp/bench.test ./collect/bench
//	taskset -c 0 /tmp/bench.test -test.run '^$' -test.bench ClientEfficiency -test.benchtime 3x
//
// One iteration is 1,024 warmup requests (they open the connections) and
// the measured run of 1,024. On a shared machine the server falls behind
// when other work lands on its core; read cpu-us/event with reads/event
// and server-late, and compare runs taken in turn.
//
// PERFLAB_EFF_STREAMS (a comma list: 1024,4096) and PERFLAB_EFF_CLIENTS
// (h1,floor) pick cases; by default every client at 1,024 and 256
// streams. make gpu-check runs h1 and floor at 1,024 and 4,096 (4,096
// needs ulimit -n above 9,000).
func BenchmarkClientEfficiency(b *testing.B) {
	if testing.Short() {
		b.Skip("a 6 s load run")
	}
	srv := startPacedServer(b, effTTFT, effITL, effTokens)
	for _, tc := range []struct {
		name    string
		client  func() *http.Client
		streams int
	}{
		{"client=h1", nil, effStreams}, // what perflab bench uses
		{"client=h1-rawconn", nil, effStreams},
		{"client=net-http", func() *http.Client { return newClient(effStreams, 0) }, effStreams},
		{"client=floor", nil, effStreams},
		{"client=h1", nil, 256},
		{"client=h1-rawconn", nil, 256},
		{"client=net-http", func() *http.Client { return newClient(256, 0) }, 256},
		{"client=floor", nil, 256},
		// make gpu-check's heavier point (PERFLAB_EFF_STREAMS=4096).
		{"client=h1", nil, 4096},
		{"client=floor", nil, 4096},
	} {
		if !effSelected(tc.name, tc.streams) {
			continue
		}
		b.Run(fmt.Sprintf("streams=%d/%s", tc.streams, tc.name), func(b *testing.B) {
			var cswPerEv, ttftRead, ttftStart, deliv50, deliv99, delivFirst, cpuPerRead, readsPerEv, srvCPU, cpuPerEv, ttftEx, ttftEx99, itl50, itl99, late50, late99 []float64
			for b.Loop() {
				var (
					wall0      time.Time
					reads      int64
					res        *schema.Result
					dur        float64
					events     float64
					cpuS       float64
					csw0, csw1 int64
					onStart    = func(t time.Time) { wall0 = t; srv.reset(b); csw0 = voluntaryCSW() }
				)
				if tc.name == "client=floor" {
					fr, err := floorRun(srv.url, tc.streams, effTokens, onStart)
					if err != nil {
						b.Skip(err)
					}
					res = &schema.Result{Requests: fr.recs}
					dur, events, cpuS, reads = fr.dur, float64(fr.events), fr.cpuS, fr.reads
					csw1 = csw0 + fr.csw
				} else {
					cfg := Config{
						BaseURL: srv.url, Model: "mock", Samples: samples(tc.streams, effTokens),
						RequestTimeout: time.Minute,
						// the warmups open the connections (dialing 1,024
						// sockets at once is not what is measured); the
						// server's lateness counts from the run's start
						NumWarmups: tc.streams, RequestIDPrefix: "eff-",
					}
					cfg.onStart = onStart
					cfg.noPoll = tc.name == "client=h1-rawconn"
					cfg.onEnd = func(n int64) { reads, csw1 = n, voluntaryCSW() }
					if tc.client != nil {
						cfg.Client = tc.client()
					}
					var err error
					res, dur, err = measure(context.Background(), cfg)
					if cfg.Client != nil {
						cfg.Client.CloseIdleConnections()
					}
					if err != nil {
						b.Fatal(err)
					}
					events = res.Client.EventsPerS * dur
					cpuS = res.Client.CPUPercent / 100 * dur
				}
				var ttfts, itls []float64
				for _, r := range res.Requests {
					if !r.Success || len(r.EventS) != effTokens {
						b.Fatalf("request %d: %d events: %s", r.Index, len(r.EventS), r.Error)
					}
					ttfts = append(ttfts, (r.EventS[0]-r.SendS)*1000-effTTFT.Seconds()*1000)
					for k := 1; k < len(r.EventS); k++ {
						itls = append(itls, (r.EventS[k]-r.EventS[k-1])*1000)
					}
				}
				cpuPerEv = append(cpuPerEv, cpuS/events*1e6)
				cswPerEv = append(cswPerEv, float64(csw1-csw0)/events)
				cpuPerRead = append(cpuPerRead, cpuS/float64(reads)*1e6)
				readsPerEv = append(readsPerEv, float64(reads)/events)
				ttftEx = append(ttftEx, mean(ttfts))
				ttftEx99 = append(ttftEx99, pct(ttfts, 99))
				itl50 = append(itl50, pct(itls, 50))
				itl99 = append(itl99, pct(itls, 99))
				// how long after the server wrote an event the client
				// stamped it: the client's own share of TTFT and ITL
				sent := srv.sentTimes(b)
				var deliv, first, srvRead, srvStart []float64
				for _, r := range res.Requests {
					ts := sent["eff-"+strconv.Itoa(r.Index)]
					if len(ts) != 2+len(r.EventS) {
						b.Fatalf("request %d: server wrote %d events, client stamped %d", r.Index, len(ts)-2, len(r.EventS))
					}
					// TTFT's parts before the server's schedule starts:
					// the client's send stamp → the server's first read of
					// the request → the request parsed (schedule's t=0)
					send := wall0.UnixNano() + int64(r.SendS*1e9)
					srvRead = append(srvRead, float64(ts[0]-send)/1e6)
					srvStart = append(srvStart, float64(ts[1]-send)/1e6)
					ts = ts[2:]
					for k, e := range r.EventS {
						d := float64(wall0.UnixNano()+int64(e*1e9)-ts[k]) / 1e6
						deliv = append(deliv, d)
						if k == 0 {
							first = append(first, d)
						}
					}
				}
				deliv50, deliv99 = append(deliv50, pct(deliv, 50)), append(deliv99, pct(deliv, 99))
				delivFirst = append(delivFirst, mean(first))
				ttftRead, ttftStart = append(ttftRead, mean(srvRead)), append(ttftStart, mean(srvStart))
				l50, l99, scpu := srv.lateness(b)
				late50, late99, srvCPU = append(late50, l50), append(late99, l99), append(srvCPU, scpu)
			}
			// medians over the iterations (-benchtime Nx)
			b.ReportMetric(median(cpuPerEv), "cpu-us/event")
			b.ReportMetric(median(cpuPerRead), "cpu-us/read")
			b.ReportMetric(median(readsPerEv), "reads/event")
			b.ReportMetric(median(cswPerEv), "sleeps/event")
			b.ReportMetric(median(ttftEx), "ttft-excess-ms")
			b.ReportMetric(median(ttftEx99), "ttft-excess-p99-ms")
			b.ReportMetric(median(itl50), "itl-p50-ms")
			b.ReportMetric(median(itl99), "itl-p99-ms")
			b.ReportMetric(median(late50), "server-late-p50-ms")
			b.ReportMetric(median(late99), "server-late-p99-ms")
			b.ReportMetric(median(srvCPU), "server-cpu-us/event")
			b.ReportMetric(median(deliv50), "deliver-p50-ms")
			b.ReportMetric(median(deliv99), "deliver-p99-ms")
			b.ReportMetric(median(delivFirst), "ttft-deliver-ms")
			b.ReportMetric(median(ttftRead), "ttft-server-read-ms")
			b.ReportMetric(median(ttftStart), "ttft-server-start-ms")
			b.ReportMetric(0, "ns/op")
		})
	}
}

func mean(s []float64) float64 {
	t := 0.0
	for _, v := range s {
		t += v
	}
	return t / float64(len(s))
}

func median(s []float64) float64 { return pct(slices.Clone(s), 50) }

// pacedServer streams vLLM-shaped completion events at exact times: TTFT,
// then one event per ITL, each written on its own (one chunk, one write),
// never merged. One goroutine writes every stream's due events, so the
// server costs about a write(2) per event and holds its schedule on one
// shared core at 100k events/s, which net/http (a goroutine wakeup,
// chunked writer and flush per event) does not; it keeps how late each
// event left against its schedule. HTTP/1.1 only, as much as the bench
// client uses: keep-alive POSTs with a Content-Length body, chunked
// answers.
type pacedServer struct {
	ttft, itl time.Duration
	tokens    int

	mu    sync.Mutex
	wake  chan struct{}
	queue pacedHeap // streams by next due time
	late  []time.Duration
	sent  map[string][]int64 // by x-request-id: wall-clock ns of the request's first read, its parse, each event written
	cpu0  float64
}

// stampConn notes when a Read first returned bytes since the last clear:
// when the server's connection goroutine got a request's first bytes.
type stampConn struct {
	net.Conn
	first int64
}

func (c *stampConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	if n > 0 && c.first == 0 {
		c.first = time.Now().UnixNano()
	}
	return n, err
}

type pacedStream struct {
	conn  net.Conn
	id    string
	start time.Time
	next  int // next token
	n     int // tokens
	due   time.Time
	done  chan struct{}
	buf   []byte
	sent  []int64
}

type pacedHeap []*pacedStream

func (h pacedHeap) Len() int             { return len(h) }
func (h pacedHeap) Less(i, j int) bool   { return h[i].due.Before(h[j].due) }
func (h pacedHeap) Swap(i, j int)        { h[i], h[j] = h[j], h[i] }
func (h *pacedHeap) Push(x any)          { *h = append(*h, x.(*pacedStream)) }
func (h *pacedHeap) Pop() any            { o := *h; x := o[len(o)-1]; *h = o[:len(o)-1]; return x }
func (h pacedHeap) peek() *pacedStream   { return h[0] }
func (h *pacedHeap) fix()                { heap.Fix(h, 0) }
func (h *pacedHeap) push(s *pacedStream) { heap.Push(h, s) }
func (h *pacedHeap) pop()                { heap.Pop(h) }

func (p *pacedServer) serve(l net.Listener) {
	p.wake = make(chan struct{}, 1)
	go p.pace()
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		go p.conn(c)
	}
}

// conn reads requests one after the other and hands each to the pacer.
func (p *pacedServer) conn(c net.Conn) {
	defer c.Close()
	sc := &stampConn{Conn: c}
	br := bufio.NewReader(sc)
	for {
		sc.first = 0
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		st := &pacedStream{conn: c, id: req.Header.Get("x-request-id"), start: time.Now(), n: p.tokens,
			done: make(chan struct{}), buf: make([]byte, 0, 512)}
		st.sent = append(st.sent, sc.first, st.start.UnixNano())
		st.due = st.start.Add(p.ttft)
		if _, err := io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n"); err != nil {
			return
		}
		p.mu.Lock()
		p.queue.push(st)
		p.mu.Unlock()
		select {
		case p.wake <- struct{}{}:
		default:
		}
		<-st.done
	}
}

// pace sleeps to the earliest due event and writes every event due.
func (p *pacedServer) pace() {
	t := time.NewTimer(time.Hour)
	for {
		p.mu.Lock()
		now := time.Now()
		for len(p.queue) > 0 && !p.queue.peek().due.After(now) {
			st := p.queue.peek()
			p.send(st)
			p.late = append(p.late, time.Since(st.due))
			st.sent = append(st.sent, time.Now().UnixNano())
			st.next++
			if st.next == st.n {
				p.sent[st.id] = st.sent
				p.queue.pop()
				close(st.done)
				continue
			}
			st.due = st.start.Add(p.ttft + time.Duration(st.next)*p.itl)
			p.queue.fix()
			now = time.Now()
		}
		wait := time.Hour
		if len(p.queue) > 0 {
			wait = time.Until(p.queue.peek().due)
		}
		p.mu.Unlock()
		t.Reset(wait)
		select {
		case <-t.C:
		case <-p.wake:
			t.Stop()
		}
	}
}

// send writes token st.next as one chunk (the last one with the usage
// event, [DONE] and the chunked body's end).
func (p *pacedServer) send(st *pacedStream) {
	i := st.next
	ev := append(st.buf[:0], `data: {"id":"cmpl-`...)
	ev = append(ev, st.id...)
	ev = append(ev, `","object":"text_completion","created":1795338779,"model":"mock","choices":[{"index":0,"text":" tok`...)
	ev = strconv.AppendInt(ev, int64(i), 10)
	last := i == st.n-1
	if last {
		ev = append(ev, `","logprobs":null,"finish_reason":"length","stop_reason":null}]}`+"\n\n"...)
		ev = fmt.Appendf(ev, `data: {"id":"cmpl-x","object":"text_completion","created":1795338779,"model":"mock","choices":[],"usage":{"prompt_tokens":5,"total_tokens":%d,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", 5+st.n, st.n)
	} else {
		ev = append(ev, `","logprobs":null,"finish_reason":null,"stop_reason":null}]}`+"\n\n"...)
	}
	size := len(ev)
	out := strconv.AppendInt(st.buf[len(ev):len(ev)], int64(size), 16)
	out = append(out, "\r\n"...)
	out = append(out, ev...)
	out = append(out, "\r\n"...)
	if last {
		out = append(out, "0\r\n\r\n"...)
	}
	st.buf = ev[:0]
	st.conn.Write(out)
}

// servePaced is TestMain's server mode: PERFLAB_PACED_SERVER=ttft_ms,itl_ms,tokens.
// It prints its address, then answers stdin's commands: "reset" clears
// the lateness samples, "late" prints their p50 and p99 in ms; EOF ends it.
func servePaced(spec string) {
	var ttft, itl, tokens int
	if _, err := fmt.Sscanf(spec, "%d,%d,%d", &ttft, &itl, &tokens); err != nil {
		fmt.Fprintln(os.Stderr, "PERFLAB_PACED_SERVER:", err)
		os.Exit(2)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	p := &pacedServer{ttft: time.Duration(ttft) * time.Millisecond, itl: time.Duration(itl) * time.Millisecond, tokens: tokens,
		sent: map[string][]int64{}}
	go p.serve(l)
	fmt.Println(l.Addr().String())
	sc := bufio.NewScanner(pollableStdin())
	for sc.Scan() {
		p.mu.Lock()
		switch sc.Text() {
		case "sent":
			w := bufio.NewWriter(os.Stdout)
			for id, ts := range p.sent {
				w.WriteString(id)
				for _, t := range ts {
					w.WriteByte(' ')
					w.WriteString(strconv.FormatInt(t, 10))
				}
				w.WriteByte('\n')
			}
			w.WriteString("end\n")
			w.Flush()
		case "reset":
			p.late = p.late[:0]
			p.sent = map[string][]int64{}
			p.cpu0 = cpuTime()
			fmt.Println("ok")
		case "late":
			ms := make([]float64, len(p.late))
			for i, d := range p.late {
				ms[i] = float64(d.Microseconds()) / 1000
			}
			// lateness p50, p99 (ms); CPU per event (µs)
			fmt.Println(pct(ms, 50), pct(ms, 99), (cpuTime()-p.cpu0)/float64(len(ms))*1e6)
		}
		p.mu.Unlock()
	}
	os.Exit(0)
}

// pacedProc is a running pacedServer process.
type pacedProc struct {
	url string
	in  io.WriteCloser
	out *bufio.Reader
}

// startPacedServer starts the paced server in its own process, pinned
// with taskset to a CPU this process is not allowed on, when there is one.
func startPacedServer(b *testing.B, ttft, itl time.Duration, tokens int) *pacedProc {
	args := []string{os.Args[0]}
	if cpus := freeCPUs(); len(cpus) > 0 {
		if tp, err := exec.LookPath("taskset"); err == nil {
			list := make([]string, len(cpus))
			for i, c := range cpus {
				list[i] = strconv.Itoa(c)
			}
			args = []string{tp, "-c", strings.Join(list, ","), os.Args[0]}
		}
	} else {
		b.Logf("client not pinned (no CPU left for the server): run the benchmark under taskset -c 0")
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), fmt.Sprintf("PERFLAB_PACED_SERVER=%d,%d,%d", ttft.Milliseconds(), itl.Milliseconds(), tokens))
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	p := &pacedProc{in: in, out: bufio.NewReader(out)}
	p.url = "http://" + p.line(b)
	return p
}

func (p *pacedProc) line(b *testing.B) string {
	s, err := p.out.ReadString('\n')
	if err != nil {
		b.Fatalf("paced server: %v", err)
	}
	return strings.TrimSpace(s)
}

func (p *pacedProc) reset(b *testing.B) {
	fmt.Fprintln(p.in, "reset")
	p.line(b)
}

// sentTimes returns when the server wrote each event (wall-clock ns), by
// x-request-id.
func (p *pacedProc) sentTimes(b *testing.B) map[string][]int64 {
	fmt.Fprintln(p.in, "sent")
	m := map[string][]int64{}
	for {
		f := strings.Fields(p.line(b))
		if len(f) == 1 && f[0] == "end" {
			return m
		}
		ts := make([]int64, len(f)-1)
		for i, v := range f[1:] {
			ts[i], _ = strconv.ParseInt(v, 10, 64)
		}
		m[f[0]] = ts
	}
}

func (p *pacedProc) lateness(b *testing.B) (p50, p99, cpuUs float64) {
	fmt.Fprintln(p.in, "late")
	if _, err := fmt.Sscanf(p.line(b), "%g %g %g", &p50, &p99, &cpuUs); err != nil {
		b.Fatalf("paced server: %v", err)
	}
	return p50, p99, cpuUs
}

// effSelected says whether the environment picks the case (client name,
// streams) of BenchmarkClientEfficiency.
func effSelected(name string, streams int) bool {
	pick := func(env, v, def string) bool {
		list := os.Getenv(env)
		if list == "" {
			list = def
		}
		for _, x := range strings.Split(list, ",") {
			if strings.TrimSpace(x) == v {
				return true
			}
		}
		return false
	}
	return pick("PERFLAB_EFF_STREAMS", strconv.Itoa(streams), "1024,256") &&
		pick("PERFLAB_EFF_CLIENTS", strings.TrimPrefix(name, "client="), "h1,h1-rawconn,net-http,floor")
}

// freeCPUs are the CPUs of the machine outside this process's affinity set
// (from /proc/self/status): the paced server runs on all of them, so a
// gpu-check on a large node can give it several cores (one core cannot
// pace 4,096 streams: its own lateness would swamp the client's share).
func freeCPUs() []int {
	st, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	var allowed string
	for _, l := range strings.Split(string(st), "\n") {
		if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
			allowed = strings.TrimSpace(v)
		}
	}
	in := map[int]bool{}
	for _, part := range strings.Split(allowed, ",") {
		lo, hi, _ := strings.Cut(part, "-")
		a, err1 := strconv.Atoi(lo)
		z, err2 := strconv.Atoi(hi)
		if err2 != nil {
			z = a
		}
		if err1 != nil {
			return nil
		}
		for c := a; c <= z; c++ {
			in[c] = true
		}
	}
	all, err := os.ReadFile("/sys/devices/system/cpu/online")
	if err != nil {
		return nil
	}
	var free []int
	for _, part := range strings.Split(strings.TrimSpace(string(all)), ",") {
		lo, hi, _ := strings.Cut(part, "-")
		a, _ := strconv.Atoi(lo)
		z, err := strconv.Atoi(hi)
		if err != nil {
			z = a
		}
		for c := a; c <= z; c++ {
			if !in[c] {
				free = append(free, c)
			}
		}
	}
	return free
}

// pipeConn is an in-memory server connection for BenchmarkReadPath: each
// request written to it is answered with a chunked event stream, one
// chunk per Read, as a socket delivers events that arrive ITLs apart.
type pipeConn struct {
	net.Conn // nil: only the methods below are used
	header   []byte
	events   [][]byte // each a whole chunk: size line, data, CRLF
	next     int      // -1: idle, waiting for a request
	wake     chan struct{}
	closed   chan struct{}
}

func newPipeConn(events [][]byte) *pipeConn {
	p := &pipeConn{header: []byte("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"),
		next: -1, wake: make(chan struct{}, 1), closed: make(chan struct{})}
	for _, e := range events {
		p.events = append(p.events, fmt.Appendf(nil, "%x\r\n%s\r\n", len(e), e))
	}
	p.events = append(p.events, []byte("0\r\n\r\n"))
	return p
}

func (p *pipeConn) Write(b []byte) (int, error) {
	if p.next == -1 {
		p.next = -2 // the header comes first
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
	return len(b), nil
}

func (p *pipeConn) Read(b []byte) (int, error) {
	if p.next == -1 {
		select {
		case <-p.wake:
		case <-p.closed:
			return 0, io.EOF
		}
	}
	var src []byte
	if p.next == -2 {
		src, p.next = p.header, 0
	} else {
		src = p.events[p.next]
		p.next++
		if p.next == len(p.events) {
			p.next = -1
		}
	}
	if len(b) < len(src) {
		panic("pipeConn: read buffer smaller than one chunk")
	}
	return copy(b, src), nil
}

func (p *pipeConn) Close() error {
	select {
	case <-p.closed:
	default:
		close(p.closed)
	}
	return nil
}
func (p *pipeConn) LocalAddr() net.Addr                { return &net.TCPAddr{} }
func (p *pipeConn) RemoteAddr() net.Addr               { return &net.TCPAddr{} }
func (p *pipeConn) SetDeadline(t time.Time) error      { return nil }
func (p *pipeConn) SetReadDeadline(t time.Time) error  { return nil }
func (p *pipeConn) SetWriteDeadline(t time.Time) error { return nil }

// BenchmarkReadPath measures the client's user-space cost per event with
// one event per read (the on-schedule case of BenchmarkClientEfficiency)
// and no kernel: vLLM-shaped events, chunked, through perflab bench's own
// HTTP/1.1 reader (client=h1) and through net/http's (client=net-http).
// The difference is what h1Client saves on every event; the read(2),
// wakeup and TCP costs come on top and are the same for both.
func BenchmarkReadPath(b *testing.B) {
	for _, tokens := range []int{256, 1} {
		b.Run(fmt.Sprintf("tokens=%d", tokens), func(b *testing.B) { benchReadPath(b, tokens) })
	}
}

func benchReadPath(b *testing.B, tokens int) {
	var events [][]byte
	for i := range tokens {
		events = append(events, fmt.Appendf(nil, `data: {"id":"cmpl-perflab-bench-0a1b2c3d-0","object":"text_completion","created":1795338779,"model":"mock","choices":[{"index":0,"text":" tok%d","logprobs":null,"finish_reason":null,"stop_reason":null}]}`+"\n\n", i))
	}
	events = append(events, fmt.Appendf(nil, `data: {"id":"cmpl-x","object":"text_completion","created":1795338779,"model":"mock","choices":[],"usage":{"prompt_tokens":5,"total_tokens":%d,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", 5+tokens, tokens))
	for _, name := range []string{"client=h1", "client=net-http"} {
		b.Run(name, func(b *testing.B) {
			conn := newPipeConn(events)
			defer conn.Close()
			dial := func(context.Context, string, string) (net.Conn, error) { return conn, nil }
			r := &runner{
				cfg:  Config{Backend: "openai", Model: "m", RequestTimeout: time.Hour, Samples: samples(1, tokens)},
				url:  "http://bench.invalid/v1/completions",
				base: time.Now(),
			}
			if name == "client=h1" {
				r.h1, r.h1Header = leanClient(r.url, nil, 1)
				r.h1.dial = dial
			} else {
				r.client = &http.Client{Transport: &http.Transport{DialContext: dial, DisableCompression: true,
					MaxIdleConnsPerHost: 1, ReadBufferSize: 32 << 10, WriteBufferSize: 16 << 10}}
			}
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				var rec schema.Request
				r.request(context.Background(), 0, &rec, nil)
				if !rec.Success || len(rec.EventS) != tokens {
					b.Fatalf("%+v", rec)
				}
			}
			// CPU time rather than wall time: steadier on a shared machine
			b.ReportMetric((cpuTime()-cpu0)*1e9/float64(b.N*(tokens+1)), "cpu-ns/event")
			b.ReportMetric(0, "ns/op")
		})
	}
}
