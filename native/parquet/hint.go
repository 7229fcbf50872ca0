package parquet

import (
	"io"

	"github.com/parquet-go/parquet-go/format"
)

// readAnnouncer is a ReaderAt of remote bytes (objstore.File) that fetches better when told what
// will be read: the column chunks of a row group are read front to back, all at once, and the
// bytes between the projected chunks not at all.
type readAnnouncer interface{ WillRead(ranges [][2]int64) }

// announceChunks tells ra, if it listens, the column chunks the reader will decode: per selected
// row group, the chunks of the projected columns ({offset, length}).
func announceChunks(ra io.ReaderAt, meta *format.FileMetaData, groups []int, cols []*column) {
	a, ok := ra.(readAnnouncer)
	if !ok {
		return
	}
	for _, i := range groups {
		var chunks [][2]int64
		for _, c := range cols {
			if c.leaf == nil {
				continue
			}
			md := &meta.RowGroups[i].Columns[c.leaf.index].MetaData
			off := md.DataPageOffset
			if md.DictionaryPageOffset > 0 && md.DictionaryPageOffset < off {
				off = md.DictionaryPageOffset
			}
			chunks = append(chunks, [2]int64{off, md.TotalCompressedSize})
		}
		if len(chunks) > 0 {
			a.WillRead(chunks)
		}
	}
}
