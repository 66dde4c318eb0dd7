package provider

import (
	"slices"
	"testing"
)

type waves interface{ Wave() }

type waver struct{}

func (waver) Wave() {}

// A provider has an optional capability when its client implements the
// capability's interface, and only then: the descriptor lists it from the
// client, never by hand.
func TestOptionalCapabilitiesComeFromTheInterfaces(t *testing.T) {
	c := AllCapabilities[len(AllCapabilities)-1].Name
	t.Cleanup(func() { delete(optional, c) })
	optionalCapability(c, func(impl any) bool { _, ok := impl.(waves); return ok })
	if got := Optional(waver{}); !slices.Equal(got, []Capability{c}) {
		t.Errorf("a client with the interface has %v", got)
	}
	if got := Optional(struct{}{}); len(got) != 0 {
		t.Errorf("a client without it has %v", got)
	}
}
