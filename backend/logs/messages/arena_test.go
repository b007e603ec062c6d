package messages

import (
	"strings"
	"testing"
)

func TestArenaText(t *testing.T) {
	var a Arena
	var got, want []string
	for i := range 2000 {
		b := []byte(strings.Repeat(string(rune('a'+i%26)), 1+i%40))
		if i%500 == 0 {
			b = []byte(strings.Repeat("L", arenaText)) // larger than a block's share
		}
		got, want = append(got, a.Text(b)), append(want, string(b))
		clear(b)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("text %d = %q, want %q", i, got[i], want[i])
		}
	}
	if (&Arena{}).Text(nil) != "" || (*Arena)(nil).Text([]byte("x")) != "x" {
		t.Fatal("empty or nil-arena text")
	}
}

// TestArenaFields: a field slice has the room asked for, and appending past
// it moves the slice instead of writing into the next one's.
func TestArenaFields(t *testing.T) {
	var a Arena
	first := a.Fields(2, 1)
	second := a.Fields(3, 0)
	if len(first) != 0 || cap(first) != 3 || cap(second) != 3 {
		t.Fatalf("len %d cap %d / cap %d", len(first), cap(first), cap(second))
	}
	second = append(second, Field{"s", "1"})
	first = append(first, Field{"a", "1"}, Field{"b", "2"}, Field{"c", "3"}, Field{"d", "4"})
	if second[0] != (Field{"s", "1"}) {
		t.Fatalf("appending to one slice changed the next: %v", second)
	}
	if len(first) != 4 {
		t.Fatal(first)
	}
	if big := a.Fields(arenaFields, 0); cap(big) != arenaFields {
		t.Fatalf("cap %d", cap(big))
	}
	if n := (*Arena)(nil).Fields(2, 3); cap(n) != 5 {
		t.Fatalf("nil arena: cap %d", cap(n))
	}
}
