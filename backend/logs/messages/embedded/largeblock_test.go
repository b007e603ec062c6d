package embedded

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// TestContractLargeBlocks runs the contract suite on segments of version
// 2, whose blocks are rows, with every block read as a large one, streamed
// for the one record wanted, so that the path large messages take in such
// segments answers exactly as the usual one.
func TestContractLargeBlocks(t *testing.T) {
	old, oldVersion := largeBlock, writeVersion
	largeBlock, writeVersion = 0, 2
	// Cleanup, not defer: the suite's subtests run after this returns.
	t.Cleanup(func() { largeBlock, writeVersion = old, oldVersion })
	messagestest.Run(t, messagestest.Factory{Open: func(t *testing.T) messages.Store {
		s, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}})
}
