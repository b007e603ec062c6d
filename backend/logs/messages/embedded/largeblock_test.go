package embedded

import (
	"testing"

	"github.com/loggate/loggate/backend/logs/messages"
	"github.com/loggate/loggate/backend/logs/messages/messagestest"
)

// TestContractLargeBlocks runs the contract suite with every block read as
// a large one, streamed for the one record wanted, so that the path large
// messages take answers exactly as the usual one.
func TestContractLargeBlocks(t *testing.T) {
	old := largeBlock
	largeBlock = 0
	// Cleanup, not defer: the suite's subtests run after this returns.
	t.Cleanup(func() { largeBlock = old })
	messagestest.Run(t, messagestest.Factory{Open: func(t *testing.T) messages.Store {
		s, err := Open(t.TempDir(), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}})
}
