package render

import (
	"os"
	"syscall"
)

// statID is fi's identity (statcache.go).
func statID(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{
		Size:  fi.Size(),
		MTime: st.Mtim.Nano(),
		CTime: st.Ctim.Nano(),
		Ino:   st.Ino,
		Dev:   uint64(st.Dev),
	}, true
}
