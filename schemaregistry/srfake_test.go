package schemaregistry

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// TestSameAsSrfake runs one script of calls outside compatibility (which
// srfake does not check) against this registry and franz-go's srfake and
// wants the same answers: ids, versions, subjects, deletes and their
// error codes, config and mode.
func TestSameAsSrfake(t *testing.T) {
	ours := newRig(t).start("")
	fake := srfake.NewRegistry()
	defer fake.Close()
	hs := httptest.NewServer(fake.Handler())
	defer hs.Close()
	theirs, err := sr.NewClient(sr.URLs(hs.URL))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ours.cl.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone})
	theirs.SetCompatibility(ctx, sr.SetCompatibility{Level: sr.CompatNone})
	// Where srfake and Confluent differ, this registry answers as
	// Confluent, and the step wants Confluent's answer: a version of an
	// unknown subject is 40401 (srfake: 40402); the raw schema endpoints
	// answer the schema text itself (srfake: a JSON string, or the whole
	// version object).
	confluent := map[int]string{13: "error 40401", 35: avroV1, 36: jsonOpen, 38: protoV1}
	for i, step := range differentialScript() {
		a, b := step(ctx, ours.cl), step(ctx, theirs)
		if want, ok := confluent[i]; ok {
			if a != want {
				t.Errorf("step %d: ours %s, want Confluent's %s (srfake %s)", i, a, want, b)
			}
			continue
		}
		if a != b {
			t.Errorf("step %d: ours %s, srfake %s", i, a, b)
		}
	}
}

// answer renders a result and an error's code for comparison.
func answer(v any, err error) string {
	if err != nil {
		return fmt.Sprintf("error %d", code(err))
	}
	return fmt.Sprint(v)
}

func differentialScript() []func(context.Context, *sr.Client) string {
	create := func(subject, schema string, typ sr.SchemaType) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			s, err := cl.CreateSchema(ctx, subject, sr.Schema{Schema: schema, Type: typ})
			return answer([]int{s.ID, s.Version}, err)
		}
	}
	byID := func(id int) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			s, err := cl.SchemaByID(ctx, id)
			return answer([]any{s.Schema, s.Type}, err)
		}
	}
	version := func(subject string, v int) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			s, err := cl.SchemaByVersion(ctx, subject, v)
			return answer([]any{s.Subject, s.Version, s.ID, s.Schema.Schema}, err)
		}
	}
	versions := func(subject string) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string { return answer(cl.SubjectVersions(ctx, subject)) }
	}
	subjects := func(ctx context.Context, cl *sr.Client) string {
		s, err := cl.Subjects(ctx)
		slices.Sort(s)
		return answer(s, err)
	}
	lookup := func(subject, schema string) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			s, err := cl.LookupSchema(ctx, subject, sr.Schema{Schema: schema})
			return answer([]int{s.ID, s.Version}, err)
		}
	}
	del := func(subject string, how sr.DeleteHow) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string { return answer(cl.DeleteSubject(ctx, subject, how)) }
	}
	delVersion := func(subject string, v int, how sr.DeleteHow) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			return answer(nil, cl.DeleteSchema(ctx, subject, v, how))
		}
	}
	config := func(subject string) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			c := cl.Compatibility(ctx, subject)[0]
			return answer(c.Level, c.Err)
		}
	}
	setConfig := func(subject string, l sr.CompatibilityLevel) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			c := cl.SetCompatibility(ctx, sr.SetCompatibility{Level: l}, subject)[0]
			return answer(c.Level, c.Err)
		}
	}
	rawByID := func(id int) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string { return answer(cl.SchemaTextByID(ctx, id)) }
	}
	rawVersion := func(subject string, v int) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			return answer(cl.SchemaTextByVersion(ctx, subject, v))
		}
	}
	subjectsByID := func(id int) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string { return answer(cl.SubjectsByID(ctx, id)) }
	}
	allSchemas := func(params ...sr.Param) func(context.Context, *sr.Client) string {
		return func(ctx context.Context, cl *sr.Client) string {
			ss, err := cl.AllSchemas(sr.WithParams(ctx, params...))
			slices.SortFunc(ss, func(a, b sr.SubjectSchema) int {
				return strings.Compare(fmt.Sprint(a.Subject, a.Version), fmt.Sprint(b.Subject, b.Version))
			})
			var out []string
			for _, s := range ss {
				out = append(out, fmt.Sprint(s.Subject, s.Version, s.ID))
			}
			return answer(out, err)
		}
	}
	mode := func(ctx context.Context, cl *sr.Client) string {
		m := cl.Mode(ctx)[0]
		return answer(m.Mode, m.Err)
	}
	return []func(context.Context, *sr.Client) string{
		create("a-value", avroV1, sr.TypeAvro),
		create("a-value", avroV1, sr.TypeAvro),
		create("a-value", avroV2, sr.TypeAvro),
		create("b-value", avroV1, sr.TypeAvro),
		create("p-value", protoV1, sr.TypeProtobuf),
		create("j-value", jsonOpen, sr.TypeJSON),
		byID(1), byID(3), byID(4), byID(40),
		version("a-value", 1), version("a-value", -1), version("a-value", 9), version("zz", 1),
		versions("a-value"), versions("zz"), subjects,
		lookup("a-value", avroV2), lookup("zz", avroV2),
		delVersion("a-value", 2, sr.SoftDelete), versions("a-value"), version("a-value", -1),
		del("b-value", sr.SoftDelete), subjects, versions("b-value"),
		del("b-value", sr.HardDelete), del("b-value", sr.SoftDelete),
		del("zz", sr.SoftDelete),
		create("a-value", avroV2, sr.TypeAvro),
		config(""), setConfig("a-value", sr.CompatFull), config("a-value"), setConfig("", sr.CompatForward), config(""),
		mode,
		rawByID(1), rawByID(4), rawByID(40), rawVersion("p-value", 1), rawVersion("p-value", 2),
		subjectsByID(1), subjectsByID(40),
		create("a/b-value", avroV1, sr.TypeAvro), version("a/b-value", 1), subjects,
		allSchemas(), allSchemas(sr.LatestOnly), allSchemas(sr.SubjectPrefix("a")),
		func(ctx context.Context, cl *sr.Client) string { return answer(cl.Contexts(ctx)) },
	}
}
