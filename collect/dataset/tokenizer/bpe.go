package tokenizer

import (
	"fmt"
	"math"
	"unicode/utf8"
)

// merge is one BPE merge rule: its rank (lower merges first) and the id
// of the merged token.
type merge struct {
	rank int32
	id   int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// linearLimit is the word length (in symbols) up to which BPE scans for
// the best pair instead of keeping a heap: for short words the scan is
// cheaper; the heap keeps long words (SentencePiece-style files have no
// pre-tokenizer, so a whole paragraph can be one word) O(n log n).
const linearLimit = 48

// bpeWord encodes one pre-tokenized piece with the model, appending ids.
func (t *Tokenizer) bpeWord(word string, out []int32) ([]int32, error) {
	if t.ignoreMerges {
		if id, ok := t.vocab[word]; ok {
			return append(out, id), nil
		}
	}
	syms := make([]int32, 0, len(word))
	lastUnk := false
	for i, r := range word {
		if r == utf8.RuneError {
			if _, n := utf8.DecodeRuneInString(word[i:]); n == 1 {
				return nil, fmt.Errorf("invalid UTF-8 in %q", word)
			}
		}
		if id, ok := t.charIDs[r]; ok {
			syms = append(syms, id)
			lastUnk = false
			continue
		}
		var buf [4]byte
		n := utf8.EncodeRune(buf[:], r)
		switch {
		case t.byteFallback && t.haveBytes(buf[:n]):
			for _, b := range buf[:n] {
				syms = append(syms, t.byteIDs[b])
			}
			lastUnk = false
		case t.unkID >= 0:
			if !(t.fuseUnk && lastUnk) {
				syms = append(syms, t.unkID)
			}
			lastUnk = true
		default:
			return nil, fmt.Errorf("character %q (U+%04X) is not in the vocab and the model has neither byte_fallback nor unk_token", r, r)
		}
	}
	if len(syms) <= linearLimit {
		return append(out, t.mergeLinear(syms)...), nil
	}
	return append(out, t.mergeHeap(syms)...), nil
}

// haveBytes reports whether every byte has a byte-fallback token.
func (t *Tokenizer) haveBytes(bs []byte) bool {
	for _, b := range bs {
		if t.byteIDs[b] < 0 {
			return false
		}
	}
	return true
}

// mergeLinear applies merges by repeatedly taking the lowest-ranked
// adjacent pair (leftmost on ties), as the Rust library's priority queue
// does. The rank of every adjacent pair is kept in an array, so a merge
// costs two map lookups (its new neighbours) and a scan of small ints.
func (t *Tokenizer) mergeLinear(syms []int32) []int32 {
	if len(syms) < 2 {
		return syms
	}
	const none = int32(math.MaxInt32)
	var rankBuf, idBuf [linearLimit]int32
	var ranks, ids []int32
	if n := len(syms) - 1; n <= linearLimit {
		ranks, ids = rankBuf[:n], idBuf[:n]
	} else {
		ranks, ids = make([]int32, n), make([]int32, n)
	}
	pair := func(i int) {
		if m, ok := t.merges[pairKey(syms[i], syms[i+1])]; ok {
			ranks[i], ids[i] = m.rank, m.id
		} else {
			ranks[i] = none
		}
	}
	for i := range ranks {
		pair(i)
	}
	for len(ranks) > 0 {
		best := -1
		bestRank := none
		for i, r := range ranks {
			if r < bestRank {
				best, bestRank = i, r
			}
		}
		if best < 0 {
			break
		}
		syms[best] = ids[best]
		syms = append(syms[:best+1], syms[best+2:]...)
		ranks = append(ranks[:best], ranks[best+1:]...)
		ids = append(ids[:best], ids[best+1:]...)
		if best > 0 {
			pair(best - 1)
		}
		if best < len(ranks) {
			pair(best)
		}
	}
	return syms
}

// heapItem is a candidate merge of the symbol at pos with its right
// neighbour; left and right remember both ids so a stale item is skipped.
type heapItem struct {
	rank, pos   int32
	left, right int32
	id          int32
}

// mergeHeap is a binary min-heap of heapItems by (rank, pos), typed to
// avoid container/heap's boxing of every pushed item.
type mergeHeap []heapItem

func (h mergeHeap) less(i, j int) bool {
	if h[i].rank != h[j].rank {
		return h[i].rank < h[j].rank
	}
	return h[i].pos < h[j].pos
}

func (h *mergeHeap) push(it heapItem) {
	*h = append(*h, it)
	a := *h
	for i := len(a) - 1; i > 0; {
		p := (i - 1) / 2
		if !a.less(i, p) {
			break
		}
		a[i], a[p] = a[p], a[i]
		i = p
	}
}

func (h *mergeHeap) pop() heapItem {
	a := *h
	top := a[0]
	last := len(a) - 1
	a[0] = a[last]
	a = a[:last]
	for i := 0; ; {
		l, r, m := 2*i+1, 2*i+2, i
		if l < len(a) && a.less(l, m) {
			m = l
		}
		if r < len(a) && a.less(r, m) {
			m = r
		}
		if m == i {
			break
		}
		a[i], a[m] = a[m], a[i]
		i = m
	}
	*h = a
	return top
}

// mergeHeap is mergeLinear for long words: a doubly linked list of
// symbols and a heap of candidate pairs ordered by (rank, position).
func (t *Tokenizer) mergeHeap(syms []int32) []int32 {
	n := len(syms)
	prev := make([]int32, n)
	next := make([]int32, n)
	alive := make([]bool, n)
	for i := range syms {
		prev[i], next[i], alive[i] = int32(i-1), int32(i+1), true
	}
	next[n-1] = -1
	h := make(mergeHeap, 0, n)
	push := func(i int32) {
		j := next[i]
		if i < 0 || j < 0 {
			return
		}
		if m, ok := t.merges[pairKey(syms[i], syms[j])]; ok {
			h.push(heapItem{rank: m.rank, pos: i, left: syms[i], right: syms[j], id: m.id})
		}
	}
	for i := 0; i+1 < n; i++ {
		push(int32(i))
	}
	for len(h) > 0 {
		it := h.pop()
		i := it.pos
		j := next[i]
		if !alive[i] || j < 0 || syms[i] != it.left || syms[j] != it.right {
			continue // stale: one side has merged since
		}
		syms[i] = it.id
		alive[j] = false
		next[i] = next[j]
		if next[j] >= 0 {
			prev[next[j]] = i
		}
		if prev[i] >= 0 {
			push(prev[i])
		}
		push(i)
	}
	out := make([]int32, 0, n)
	for i := int32(0); i >= 0; i = next[i] {
		out = append(out, syms[i])
	}
	return out
}
