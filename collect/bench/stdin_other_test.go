//go:build !unix

package bench

import (
	"io"
	"os"
)

func pollableStdin() io.Reader { return os.Stdin }

func voluntaryCSW() int64 { return 0 }
