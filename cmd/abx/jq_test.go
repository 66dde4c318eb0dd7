//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/itchyny/gojq"
)

// jqMain is a small jq for the scripts (-r, -j, -c, -e), so that stories can
// pipe abx's JSON the way users do without a jq install on the machine.
func jqMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	raw, join, compact, exit := false, false, false, false
	var filter string
	for _, a := range args {
		switch {
		case a == "-r":
			raw = true
		case a == "-j": // -r without the newlines
			raw, join = true, true
		case a == "-c":
			compact = true
		case a == "-e":
			exit = true
		case strings.HasPrefix(a, "-") && len(a) > 1:
			_, _ = fmt.Fprintf(stderr, "jq: unknown flag %s\n", a)
			return 2
		default:
			filter = a
		}
	}
	q, err := gojq.Parse(filter)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "jq:", err)
		return 3
	}
	code, err := gojq.Compile(q)
	if err != nil {
		_, _ = fmt.Fprintln(stderr, "jq:", err)
		return 3
	}
	// Numbers decode as float64, which gojq takes as they are; the stories
	// have no integers beyond 2^53.
	dec := json.NewDecoder(stdin)
	status := 0
	last := any(nil)
	for {
		var v any
		if err := dec.Decode(&v); err == io.EOF {
			break
		} else if err != nil {
			_, _ = fmt.Fprintln(stderr, "jq:", err)
			return 2
		}
		iter := code.Run(v)
		for {
			out, ok := iter.Next()
			if !ok {
				break
			}
			if err, isErr := out.(error); isErr {
				_, _ = fmt.Fprintln(stderr, "jq:", err)
				return 5
			}
			last = out
			if s, isStr := out.(string); isStr && raw {
				if join {
					_, _ = fmt.Fprint(stdout, s)
				} else {
					_, _ = fmt.Fprintln(stdout, s)
				}
				continue
			}
			var b []byte
			if compact {
				b, _ = gojq.Marshal(out)
			} else {
				b, _ = json.MarshalIndent(out, "", "  ")
			}
			_, _ = fmt.Fprintln(stdout, string(b))
		}
	}
	if exit && (last == nil || last == false) {
		status = 1
	}
	return status
}
