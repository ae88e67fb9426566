package format

import "testing"

func TestDelimited(t *testing.T) { runCodecTest(t, "testdata/delimited") }
