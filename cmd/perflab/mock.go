package main

import (
	"context"
	"errors"
	"io"
)

// runMock is not built yet.
func runMock(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("mock: not implemented yet")
}
