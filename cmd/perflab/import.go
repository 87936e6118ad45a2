package main

import (
	"context"
	"errors"
	"io"
)

// runImport is not built yet.
func runImport(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return errors.New("import: not implemented yet")
}
