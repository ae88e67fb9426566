package broker

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"

	"github.com/sqlstream/sqlstream/topicname"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// guardTopicNames makes the broker refuse CreateTopics for names Kafka
// rejects (kfake accepts any name, and one too long for a directory name
// breaks the data directory at shutdown) and for more than maxPartitions
// partitions. A request with an illegal topic creates nothing: each
// illegal topic gets INVALID_TOPIC_EXCEPTION or INVALID_PARTITIONS with
// the rule it breaks, the others INVALID_REQUEST saying why.
func guardTopicNames(c *kfake.Cluster, maxPartitions int32) {
	c.ControlKey(int16(kmsg.CreateTopics), func(req kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		creq := req.(*kmsg.CreateTopicsRequest)
		bad := map[int]error{}
		for i, t := range creq.Topics {
			if err := topicname.Validate(t.Topic); err != nil {
				bad[i] = err
			} else if err := checkPartitions(requestedPartitions(t), maxPartitions); err != nil {
				bad[i] = partitionsError{err}
			}
		}
		if len(bad) == 0 {
			return nil, nil, false
		}
		return rejectCreateTopics(creq, bad), nil, true
	})
}

// partitionsError marks a topic refused for its partition count.
type partitionsError struct{ error }

func rejectCreateTopics(req *kmsg.CreateTopicsRequest, bad map[int]error) *kmsg.CreateTopicsResponse {
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	for i, t := range req.Topics {
		rt := kmsg.NewCreateTopicsResponseTopic()
		rt.Topic = t.Topic
		msg := "not created: another topic of this request is illegal"
		rt.ErrorCode = kerr.InvalidRequest.Code
		if err, ok := bad[i]; ok {
			msg, rt.ErrorCode = err.Error(), kerr.InvalidTopicException.Code
			if _, ok := err.(partitionsError); ok {
				rt.ErrorCode = kerr.InvalidPartitions.Code
			}
		}
		rt.ErrorMessage = &msg
		resp.Topics = append(resp.Topics, rt)
	}
	return resp
}

// skipUnloadableTopics runs before kfake loads dataDir: every topic of
// topics.json whose name is illegal or whose partition directories cannot
// be read (a name too long for the file system) is taken out of it, so
// that the rest of the data directory starts. The original file is kept
// as topics.json.skipped and each skipped topic is logged with its reason.
func skipUnloadableTopics(dataDir string, log *slog.Logger) error {
	path := filepath.Join(dataDir, "topics.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	var doc map[string]json.RawMessage
	var topics []json.RawMessage
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("%s is not JSON (%v): move it away to start without its topics", path, err)
	}
	if err := json.Unmarshal(doc["topics"], &topics); err != nil {
		return fmt.Errorf("%s: topics: %v: move it away to start without its topics", path, err)
	}
	kept := loadableTopics(dataDir, topics, log)
	if len(kept) == len(topics) {
		return nil
	}
	return rewriteTopics(path, raw, doc, kept)
}

// loadableTopics returns the entries of topics that kfake can load.
func loadableTopics(dataDir string, topics []json.RawMessage, log *slog.Logger) []json.RawMessage {
	kept := make([]json.RawMessage, 0, len(topics))
	for _, t := range topics {
		var entry struct {
			Name       string `json:"name"`
			Partitions int    `json:"partitions"`
		}
		err := json.Unmarshal(t, &entry)
		if err == nil {
			err = topicLoadable(dataDir, entry.Name, entry.Partitions)
		}
		if err != nil {
			log.Error("skipping a topic of the data directory that cannot be loaded; its entry is kept in topics.json.skipped",
				"topic", entry.Name, "err", err)
			continue
		}
		kept = append(kept, t)
	}
	return kept
}

func topicLoadable(dataDir, name string, partitions int) error {
	if err := topicname.Validate(name); err != nil {
		return err
	}
	for p := 0; p < partitions; p++ {
		dir := filepath.Join(dataDir, "partitions", fmt.Sprintf("%s-%d", url.PathEscape(name), p))
		if _, err := os.Stat(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func rewriteTopics(path string, raw []byte, doc map[string]json.RawMessage, kept []json.RawMessage) error {
	list, err := json.Marshal(kept)
	if err != nil {
		return err
	}
	doc["topics"] = list
	out, err := json.Marshal(doc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".skipped", raw, 0o644); err != nil {
		return fmt.Errorf("keeping the original %s: %w", path, err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, out, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
