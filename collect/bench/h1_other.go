//go:build !unix

package bench

import "errors"

// h1Supported: elsewhere requests go through net/http.
const h1Supported = false

func rawRead(int, []byte) (int, error) { return 0, errors.New("bench: raw reads are unix-only") }
