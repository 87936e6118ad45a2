package main

import (
	"context"
	"errors"
	"io"
)

// runCollect is not built yet.
func runCollect(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("collect: not implemented yet")
}
