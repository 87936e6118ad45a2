package main

import (
	"context"
	"errors"
	"io"
)

// runBuild is not built yet.
func runBuild(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("build: not implemented yet")
}
