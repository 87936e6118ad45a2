package bench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestMain doubles as the fixed-delay server of BenchmarkClientLatencyProc:
// run with PERFLAB_FIXED_SERVER=ttft_ms,itl_ms,tokens it serves on a free
// 127.0.0.1 port, prints the address, and exits when stdin closes.
func TestMain(m *testing.M) {
	if spec := os.Getenv("PERFLAB_PACED_SERVER"); spec != "" {
		servePaced(spec) // BenchmarkClientEfficiency's server; exits
	}
	if spec := os.Getenv("PERFLAB_FIXED_SERVER"); spec != "" {
		var ttft, itl, tokens int
		if _, err := fmt.Sscanf(spec, "%d,%d,%d", &ttft, &itl, &tokens); err != nil {
			fmt.Fprintln(os.Stderr, "PERFLAB_FIXED_SERVER:", err)
			os.Exit(2)
		}
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(l.Addr().String())
		f := &fixedServer{ttft: time.Duration(ttft) * time.Millisecond, itl: time.Duration(itl) * time.Millisecond,
			tokens: tokens, flushed: map[string][]time.Time{}, noRecord: true}
		go http.Serve(l, f)
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startFixedServer runs the fixed-delay server in its own process, so that
// the client's CPU share is its own.
func startFixedServer(b *testing.B, ttft, itl time.Duration, tokens int) string {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "PERFLAB_FIXED_SERVER="+strconv.Itoa(int(ttft.Milliseconds()))+","+strconv.Itoa(int(itl.Milliseconds()))+","+strconv.Itoa(tokens))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	addr, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatal(err)
	}
	return "http://" + addr[:len(addr)-1]
}
