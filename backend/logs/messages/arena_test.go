package messages

import (
	"math"
	"reflect"
	"strings"
	"testing"
)

// TestArena: the values an Arena boxes are the values given, of their
// types, compare and switch as values boxed by the runtime do, and stay as
// they were while the Arena hands out more; a nil Arena does the same with
// an allocation each.
func TestArena(t *testing.T) {
	for name, a := range map[string]*Arena{"arena": {}, "nil": nil} {
		t.Run(name, func(t *testing.T) {
			type item struct {
				got  any
				want any
			}
			var items []item
			// More than a block of each, so that values outlive the block
			// they were cut from being replaced.
			for i := range 3 * arenaValues {
				s := strings.Repeat("x", i%7) + "é"
				items = append(items,
					item{a.String(s), s},
					item{a.Int(int64(i) * 1000003), int64(i) * 1000003},
					item{a.Int(int64(i % 256)), int64(i % 256)},
					item{a.Int(-int64(i)), -int64(i)},
					item{a.Float(float64(i) / 3), float64(i) / 3},
				)
			}
			items = append(items, item{a.Float(math.Inf(-1)), math.Inf(-1)}, item{a.String(""), ""})
			for i, it := range items {
				if it.got != it.want || !reflect.DeepEqual(it.got, it.want) {
					t.Fatalf("item %d: %#v (%T), want %#v (%T)", i, it.got, it.got, it.want, it.want)
				}
				switch it.want.(type) {
				case string:
					if _, ok := it.got.(string); !ok {
						t.Fatalf("item %d: %T is not a string", i, it.got)
					}
				case int64:
					if _, ok := it.got.(int64); !ok {
						t.Fatalf("item %d: %T is not an int64", i, it.got)
					}
				case float64:
					if _, ok := it.got.(float64); !ok {
						t.Fatalf("item %d: %T is not a float64", i, it.got)
					}
				}
				if m := map[any]int{it.want: 1}; m[it.got] != 1 {
					t.Fatalf("item %d: hashes unlike the runtime's box", i)
				}
			}
		})
	}
}

// TestArenaText: the text is a copy, and neither the source changing nor
// more text cut from the Arena changes it.
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
