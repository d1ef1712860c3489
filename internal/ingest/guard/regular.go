package guard

import (
	"io/fs"
	"os"
	"syscall"

	"ragd"
)

// OpenRegular opens path for reading only if it is a regular file. A named
// pipe would block open(2) until a writer appears, and a device or socket
// has no end, so both are refused by type before the open; the open itself
// is non-blocking and the type is checked again on the descriptor, so a
// file swapped for a FIFO between the two checks is refused too. The
// refusal is a ragd.Invalid naming the file type (a 422 over REST).
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, ragd.Invalid("file_path", "value_error", "cannot open %s: %v", path, UnwrapPathErr(err))
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, notRegular(path, fi.Mode())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, ragd.Invalid("file_path", "value_error", "cannot open %s: %v", path, UnwrapPathErr(err))
	}
	fi, err = f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, ragd.Invalid("file_path", "value_error", "cannot read %s: %v", path, UnwrapPathErr(err))
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular(path, fi.Mode())
	}
	return f, fi, nil
}

func notRegular(path string, m fs.FileMode) error {
	return ragd.Invalid("file_path", "value_error", "%s is %s, not a regular file; only regular files can be ingested", path, FileTypeName(m))
}

// FileTypeName names the type of a file that is not regular, for messages
// ("a named pipe (FIFO)").
func FileTypeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeIrregular != 0:
		return "an irregular file"
	}
	return "not a regular file"
}

// UnwrapPathErr drops the *fs.PathError wrapper, whose text repeats the
// path, for messages that name the path themselves.
func UnwrapPathErr(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}
