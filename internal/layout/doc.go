// Package layout holds the test that keeps the design's boundaries:
// compat knows no storage, auth knows no resource, and the backend knows no
// old release. The rules are in layout_test.go, where a new package that
// breaks one fails the build's tests rather than a review.
package layout
