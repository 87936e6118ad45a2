package main

import (
	"context"
	"errors"
	"io"
)

// runPublish is not built yet.
func runPublish(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("publish: not implemented yet")
}
