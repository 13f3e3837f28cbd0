// Package sqlrows reads every row a query returns as one line of text,
// for the tests that compare two databases' contents (an import against
// the run it came from, a bulk load against row-by-row inserts, a killed
// run against an uninterrupted one) without naming their columns.
//
// Layer: test support at the bottom; it imports only the standard library.
package sqlrows
