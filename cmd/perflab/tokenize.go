package main

import (
	"context"
	"errors"
	"io"
)

// runTokenize is not built yet.
func runTokenize(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("tokenize: not implemented yet")
}
