package nexmark

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestCommandUnreachableBroker(t *testing.T) {
	var out, errOut bytes.Buffer
	code := Command(context.Background(), []string{"--events", "10", "--bootstrap-servers", "127.0.0.1:1"}, &out, &errOut)
	if code != 1 || !strings.HasPrefix(errOut.String(), "sqlstream nexmark: creating topics on 127.0.0.1:1:") {
		t.Errorf("exit %d, stderr %q: want 1 and the broker named", code, errOut.String())
	}
}

func TestCommandFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--events", "5", "--seed", "0"}, "--seed 0: seeds start at 1"},
		{[]string{"--events", "5", "--partitions", "0"}, "--partitions 0: want 1 … 1000"},
		{[]string{"--events", "5", "--schema-registry-url", "http://r:8081"}, "--schema-registry-url is only for AVRO, JSON_SR and PROTOBUF"},
		{[]string{"--events", "x"}, `invalid value "x" for flag -events`},
	} {
		var out, errOut bytes.Buffer
		if code := Command(context.Background(), c.args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errOut.String(), c.want)
		}
	}
}
