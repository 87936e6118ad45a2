package inputs

import (
	"os"
	"syscall"
)

// StatID is fi's identity (stats.go).
func StatID(fi os.FileInfo) (ID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return ID{}, false
	}
	return ID{
		Size:  fi.Size(),
		MTime: st.Mtim.Nano(),
		CTime: st.Ctim.Nano(),
		Ino:   st.Ino,
		Dev:   uint64(st.Dev),
	}, true
}
