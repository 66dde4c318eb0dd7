package cmdutil

import (
	"github.com/abx-dev/abx/internal/envd"
	"github.com/abx-dev/abx/internal/human"
	"github.com/abx-dev/abx/internal/output"
	"github.com/abx-dev/abx/internal/transfer"
)

// Copier moves files between this machine and sandbox id through c
// (transfer.ForSandbox), drawing a meter a file on io's stderr (on a
// terminal only): the copier of files cp, read and write, and of abx
// run's --put and --get.
func Copier(io *output.Streams, c *envd.Client, id string, canExec bool) *transfer.Copier {
	cp := transfer.ForSandbox(c, id, canExec)
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
