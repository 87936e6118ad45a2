package bytediff

import "testing"

func TestAt(t *testing.T) {
	if d := At("same", "same", 10); d != "" {
		t.Errorf("equal strings: %q", d)
	}
	if d, want := At([]byte("abcXef"), []byte("abcYef"), 2), "at byte 3:\n got …\"bcXe\"\nwant …\"bcYe\""; d != want {
		t.Errorf("got %q, want %q", d, want)
	}
	if d, want := At("abc", "abcd", 1), "at byte 3:\n got …\"c\"\nwant …\"cd\""; d != want {
		t.Errorf("prefix: got %q, want %q", d, want)
	}
}
