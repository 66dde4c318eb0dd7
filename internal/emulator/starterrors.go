package emulator

import "errors"

// What a failed Start could not use, for its caller to say what to change
// (errors.Is): the address, or the state dir.
var (
	ErrAddr     = errors.New("the emulator's address cannot be served")
	ErrStateDir = errors.New("the emulator's state dir cannot be used")
)

// kindError is err, said as it is, of a kind (ErrAddr, ErrStateDir).
type kindError struct{ kind, err error }

func (k *kindError) Error() string   { return k.err.Error() }
func (k *kindError) Unwrap() []error { return []error{k.kind, k.err} }

func addrError(err error) error     { return &kindError{ErrAddr, err} }
func stateDirError(err error) error { return &kindError{ErrStateDir, err} }
