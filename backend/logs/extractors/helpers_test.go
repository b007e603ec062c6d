package extractors_test

import (
	"fmt"
	"maps"
	"reflect"
)

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }

func mapsEqual(a, b map[string]any) bool {
	return maps.EqualFunc(a, b, func(x, y any) bool { return reflect.DeepEqual(x, y) })
}
