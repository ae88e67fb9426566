package qtt

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// qttFile is one file to load and the name the report shows for it.
type qttFile struct {
	path, name string
}

// collectFiles expands the paths given: a file stands for itself (shown by
// its base name), a folder for every *.json and *.sql file below it (shown
// relative to the folder), sorted.
func collectFiles(paths []string) ([]qttFile, error) {
	var out []qttFile
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			out = append(out, qttFile{path: p, name: filepath.Base(p)})
			continue
		}
		found, err := walkTestFiles(p)
		if err != nil {
			return nil, err
		}
		out = append(out, found...)
	}
	return out, nil
}

// testFileExts are the extensions a folder's test files have: QTT and
// RQTT files (.json), ksqlDB's SQL test files (.sql).
var testFileExts = []string{".json", ".sql"}

func walkTestFiles(root string) ([]qttFile, error) {
	var out []qttFile
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !slices.Contains(testFileExts, filepath.Ext(p)) {
			return err
		}
		rel, err := filepath.Rel(root, p)
		out = append(out, qttFile{path: p, name: filepath.ToSlash(rel)})
		return err
	})
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, err
}

// loadVariants parses every file and expands its tests. A file that does
// not parse becomes one variant named "(file)" that fails with the parse
// error, in its place, instead of stopping the run; only a path that
// cannot be listed is an error.
func loadVariants(paths []string) ([]*Variant, error) {
	files, err := collectFiles(paths)
	if err != nil {
		return nil, err
	}
	var vs []*Variant
	for _, f := range files {
		parsed, err := ReadFile(f.path, f.name)
		if err != nil {
			vs = append(vs, &Variant{File: f.name, Name: "(file)", LoadErr: err})
			continue
		}
		vs = append(vs, Expand(parsed)...)
	}
	return vs, nil
}
