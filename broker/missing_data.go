package broker

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
)

// checkMissingData runs before kfake loads dataDir and compares it with
// its topics.json: kfake loads a partition whose directory is gone as an
// empty partition at offset 0 and a missing groups.log as no committed
// offsets, silently, so a query would read its sources from the start
// again and count every record twice. After a clean shutdown kfake has
// written a directory for every partition and a groups.log (even with no
// group), so a missing one was deleted: Start refuses, naming each and
// saying how to go on. After an unclean shutdown a partition never
// written and a groups.log never needed do not exist yet, so missing
// ones are only warned about. A missing topics.json beside partition
// directories (kfake would start without any of those topics) refuses
// the start whatever the shutdown.
func checkMissingData(dataDir string, log *slog.Logger) error {
	if err := checkTopicsJSON(dataDir); err != nil {
		return err
	}
	topics, err := dataDirTopics(dataDir)
	if err != nil || len(topics) == 0 {
		return err
	}
	missing, err := missingData(dataDir, topics)
	if err != nil || len(missing) == 0 {
		return err
	}
	unclean, err := uncleanShutdown(dataDir)
	if err != nil {
		return err
	}
	if unclean {
		for _, m := range missing {
			log.Warn("the data directory misses a file or directory that topics.json implies, after an unclean shutdown: "+
				"empty if it was never written, else its data is lost", "path", m)
		}
		return nil
	}
	return missingDataError(missing)
}

// missingData lists the partition directories of topics and the
// groups.log that do not exist.
func missingData(dataDir string, topics []dataDirTopic) ([]string, error) {
	var missing []string
	check := func(path string) error {
		ok, err := exists(path)
		if err == nil && !ok {
			missing = append(missing, path)
		}
		return err
	}
	for _, t := range topics {
		for p := range t.Partitions {
			if err := check(partitionDir(dataDir, t.Name, int32(p))); err != nil {
				return nil, err
			}
		}
	}
	return missing, check(filepath.Join(dataDir, "groups.log"))
}

// missingDataError refuses to start, naming what is missing (the first
// ten) and what to do next.
func missingDataError(missing []string) error {
	shown := missing[:min(len(missing), 10)]
	more := ""
	if len(missing) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(missing)-len(shown))
	}
	return fmt.Errorf("the data directory misses %s%s, which topics.json and the last clean shutdown imply: "+
		"kfake would load a missing partition empty from offset 0 and a missing groups.log as no committed offsets, "+
		"so queries would read their sources again and count records twice; restore them from a backup, "+
		"or, to start without that data, create each missing partition as an empty directory and groups.log as an empty file",
		strings.Join(shown, ", "), more)
}

// checkTopicsJSON refuses a data directory whose partitions/ holds
// partition directories while its topics.json is gone.
func checkTopicsJSON(dataDir string) error {
	path := filepath.Join(dataDir, "topics.json")
	if ok, err := exists(path); err != nil || ok {
		return err
	}
	entries, err := os.ReadDir(filepath.Join(dataDir, "partitions"))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	dirs := 0
	for _, e := range entries {
		if e.IsDir() {
			dirs++
		}
	}
	if dirs == 0 {
		return nil
	}
	return fmt.Errorf("%s is missing but %s holds %d partition directories: kfake would start without any of their topics; "+
		"restore topics.json from a backup, or move the partitions directory away to start empty",
		path, filepath.Join(dataDir, "partitions"), dirs)
}
