package format

import "testing"

func TestKafka(t *testing.T) { runCodecTest(t, "testdata/kafka") }
