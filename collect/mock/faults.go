package mock

// fault is what happens to one request.
type fault int

const (
	faultNone    fault = iota
	faultError         // HTTP 500 at once
	faultStall         // pause before token at
	faultCut           // connection closed after token at
	faultGarbage       // malformed event before token at
)

func (f fault) String() string {
	return [...]string{"none", "error", "stall", "cut", "garbage"}[f]
}

// mix is SplitMix64's finaliser: a cheap, well-spread 64-bit hash.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// Stream for domain separation of the hashes drawn per request.
const (
	streamFault uint64 = iota + 1
	streamFaultAt
	streamID
)

// draw is the h-th pseudo-random number of stream for request n.
func draw(seed int64, n, stream uint64) uint64 {
	return mix(mix(uint64(seed)^stream<<56) ^ n)
}

// decideFault picks the fault of the n-th generation request (from 0) and
// the token index it strikes at, in [0, outLen).
func decideFault(seed int64, f Faults, n uint64, outLen int) (fault, int) {
	u := unit(draw(seed, n, streamFault))
	kind := faultNone
	for _, r := range []struct {
		k    fault
		rate float64
	}{{faultError, f.ErrorRate}, {faultStall, f.StallRate}, {faultCut, f.CutRate}, {faultGarbage, f.GarbageRate}} {
		if u < r.rate {
			kind = r.k
			break
		}
		u -= r.rate
	}
	at := 0
	if outLen > 1 {
		at = int(draw(seed, n, streamFaultAt) % uint64(outLen))
	}
	return kind, at
}

// fnv64 hashes a prompt (FNV-1a), for per-prompt output and EOS.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
