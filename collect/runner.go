package collect

import (
	"context"
	"errors"
	"fmt"

	"github.com/perflab/perflab/collect/schema"
)

// BenchRunner measures a run with perflab's benchmark core
// (collect/bench), as `perflab bench` with the profile's flags would.
func BenchRunner(ctx context.Context, t Target) (*schema.Result, error) {
	return nil, fmt.Errorf("bench runner: %w", errors.New("benchmark core not wired yet"))
}
