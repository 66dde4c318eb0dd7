package cmdutil

import (
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// Metered has cp, a sandbox's copier (sandboxes.Service.Copier), draw a
// meter a file on io's stderr (on a terminal only), and returns it: the
// copier of files cp and read --out, and of abx run's --put and --get.
func Metered(io *output.Streams, cp *transfer.Copier) *transfer.Copier {
	cp.NewMeter = func(label string, total int64) transfer.Meter {
		return io.NewProgress(label, total)
	}
	return cp
}

// NoteSkipped tells people what a copy left out, and why, a note each.
func NoteSkipped(p *output.Printer, res transfer.Result) {
	for _, s := range res.Skipped {
		p.Note("skipped %s: %s", s.Path, s.Reason)
	}
}

// Carried words what a copy carried, as files cp and run say it: "2
// files", and "2 files and 3 links" when it made links.
func Carried(res transfer.Result) string {
	files := human.Count(res.Files, "file", "files")
	if res.Links == 0 {
		return files
	}
	return files + " and " + human.Count(res.Links, "link", "links")
}
