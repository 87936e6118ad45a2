package collect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perflab/perflab/collect/engine"
	"github.com/perflab/perflab/collect/schema"
)

// faultyFile fails its first write after n bytes with err.
type faultyFile struct {
	*os.File
	n   int
	err error
}

func (f *faultyFile) Write(b []byte) (int, error) {
	if len(b) > f.n {
		w, _ := f.File.Write(b[:f.n])
		return w, f.err
	}
	return f.File.Write(b)
}

// TestCollectDiskFull: a result write that fails half-way (ENOSPC) stops
// the campaign with the error, leaves neither that result nor its
// temporary file, and the next collect runs what is missing.
func TestCollectDiskFull(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	o := opts(t, dir, pids)
	writes := 0
	o.Storage = func(d, pattern string) (schema.TempFile, error) {
		fl, err := os.CreateTemp(d, pattern)
		if err != nil {
			return nil, err
		}
		writes++
		if writes == 2 { // the second result: the first is kept
			return &faultyFile{File: fl, n: 10, err: syscall.ENOSPC}, nil
		}
		return fl, nil
	}
	_, err := Collect(context.Background(), f, o)
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "e0--long.json") {
		t.Fatalf("collect on a full disk: %v", err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "fake"))
	var names []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".json") || strings.Contains(e.Name(), ".tmp-") {
			names = append(names, e.Name())
		}
	}
	if strings.Join(names, " ") != "e0--short.json" {
		t.Fatalf("after the failed write: %v, want only e0--short.json", names)
	}
	rep, err := Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil || rep.Skipped != 1 || rep.Ran != 1 {
		t.Fatalf("after the disk is freed: %+v %v", rep, err)
	}
}

// TestCollectRemovesLeftovers: the temporary file of a collect killed
// while writing one of this shard's results is removed by the next
// collect; another shard's (a run this one does not own) is left alone.
func TestCollectRemovesLeftovers(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve", "serve")
	res := filepath.Join(dir, "fake")
	if err := os.MkdirAll(res, 0o755); err != nil {
		t.Fatal(err)
	}
	plan := NewPlan(&f.Campaign, dir)
	mine := plan.Shard(0, 2, true)[0].Path
	theirs := plan.Shard(1, 2, true)[0].Path
	ownTemp := filepath.Join(res, strings.Replace(schema.TempPattern(mine), "*", "123", 1))
	otherTemp := filepath.Join(res, strings.Replace(schema.TempPattern(theirs), "*", "456", 1))
	for _, p := range []string{ownTemp, otherTemp} {
		if err := os.WriteFile(p, []byte(`{"schema_version": 2, "id": "half`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o := opts(t, dir, pids)
	o.Shard, o.Shards = 0, 2
	if _, err := Collect(context.Background(), f, o); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(ownTemp); !os.IsNotExist(err) {
		t.Errorf("this shard's leftover %s: %v", filepath.Base(ownTemp), err)
	}
	if _, err := os.Stat(otherTemp); err != nil {
		t.Errorf("the other shard's temporary file was touched: %v", err)
	}
}

// TestCollectPortTakenAtBind: a port that passes the check before the
// launch but is taken when the engine binds it (another collect's engine
// on this node got there first) stops the campaign with ErrPortInUse, as
// a port taken before, and records no crash: the runs are run again once
// the port is free. The drill found them recorded as crashed for good.
func TestCollectPortTakenAtBind(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "serve")
	port, _ := engine.FlagValue(strings.Fields(f.Campaign.Steps[0].Experiments[0].Command), "--port")
	// Bound but not listening: a dial (the collector's check) is refused,
	// the engine's bind fails.
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	n, _ := strconv.Atoi(port)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: n, Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Skip("port taken meanwhile:", err)
	}
	_, err = Collect(context.Background(), f, opts(t, dir, pids))
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "could not bind") {
		t.Fatalf("err = %v", err)
	}
	if res, _ := filepath.Glob(filepath.Join(dir, "fake", "*.json")); len(res) != 0 {
		t.Fatalf("results written: %v", res)
	}
	syscall.Close(fd)
	rep, err := Collect(context.Background(), f, opts(t, dir, pids))
	if err != nil || rep.Ran != 2 || rep.Status[schema.StatusOK] != 2 {
		t.Fatalf("once the port is free: %+v %v", rep, err)
	}
}

// TestCollectEngineLostItsPort: an engine that passed its health checks
// and then exits saying its port is in use never served: another server
// (another collect's engine on this node) answered in its place. The run
// is not recorded as a crash of this engine (the drill found one so): the
// campaign stops with ErrPortInUse and the run is repeated later.
func TestCollectEngineLostItsPort(t *testing.T) {
	pids, dir := t.TempDir(), t.TempDir()
	f := fakeCampaign(t, pids, "portlost")
	o := opts(t, dir, pids)
	o.Runner = func(ctx context.Context, tg Target) (*schema.Result, error) {
		time.Sleep(200 * time.Millisecond) // a benchmark takes a while: the engine exits meanwhile
		return probeRunner(ctx, tg)
	}
	_, err := Collect(context.Background(), f, o)
	if !errors.Is(err, ErrPortInUse) || !strings.Contains(err.Error(), "answered in its place") {
		t.Fatalf("err = %v", err)
	}
	if res, _ := filepath.Glob(filepath.Join(dir, "fake", "*.json")); len(res) != 0 {
		t.Fatalf("results written: %v", res)
	}
}
