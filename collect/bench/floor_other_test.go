//go:build !linux

package bench

import (
	"errors"
	"time"

	"github.com/perflab/perflab/collect/schema"
)

type floorResult struct {
	recs               []schema.Request
	dur, cpuS          float64
	events, reads, csw int64
}

func floorRun(string, int, int, func(time.Time)) (floorResult, error) {
	return floorResult{}, errors.New("the floor reader is Linux-only")
}
