package server

import (
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Media types of the REST API.
const (
	mediaKsqlV1     = "application/vnd.ksql.v1+json"
	mediaJSON       = "application/json"
	mediaDelimited  = "application/vnd.ksqlapi.delimited.v1"
	mediaV1Protobuf = "application/vnd.ksql.v1+protobuf"
)

// negotiate picks the media type to answer with from the Accept header,
// honouring q-values; offers are in preference order and offers[0] is the
// default for a missing Accept or a wildcard. ok is false when nothing
// acceptable is offered (406).
func negotiate(r *http.Request, offers ...string) (media string, ok bool) {
	accept := strings.TrimSpace(strings.Join(r.Header.Values("Accept"), ","))
	if accept == "" {
		return offers[0], true
	}
	for _, rng := range parseAccept(accept) {
		if m := matchOffer(rng.media, offers); m != "" {
			return m, true
		}
	}
	return "", false
}

type mediaRange struct {
	media string
	q     float64
}

// parseAccept returns the acceptable media ranges, best first (stable
// for equal q), without q=0 entries.
func parseAccept(accept string) []mediaRange {
	var out []mediaRange
	for _, part := range strings.Split(accept, ",") {
		media, params, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		q := 1.0
		if v, ok := params["q"]; ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				q = f
			}
		}
		if q > 0 {
			out = append(out, mediaRange{media: media, q: q})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].q > out[j].q })
	return out
}

func matchOffer(media string, offers []string) string {
	if media == "*/*" {
		return offers[0]
	}
	if prefix, ok := strings.CutSuffix(media, "/*"); ok {
		for _, o := range offers {
			if strings.HasPrefix(o, prefix+"/") {
				return o
			}
		}
		return ""
	}
	for _, o := range offers {
		if o == media {
			return o
		}
	}
	return ""
}

// contentType is the Content-Type header for an answer in media.
func contentType(media string) string {
	if media == mediaJSON {
		return "application/json"
	}
	return media
}
