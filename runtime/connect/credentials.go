package connect

import (
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"
	"time"

	"github.com/sqlstream/sqlstream/internal/javaprops"
)

// Credentials is the basic-auth header read from a credentials file
// (ksql.connect.basic.auth.credentials.file: a properties file with
// username and password keys), as ksqlDB's DefaultConnectClientFactory
// builds it. The file is read at the first request; with reload, again
// whenever its modification time or size has changed since. A deleted
// file keeps the last credentials (ksqlDB does not watch deletions). A
// file that cannot be read or lacks a key is an error of the request
// naming the file, never a request sent without credentials.
type Credentials struct {
	path   string
	reload bool

	mu     sync.Mutex
	header string
	stamp  fileStamp // of the file the header was read from
	loaded bool
}

type fileStamp struct {
	mod  time.Time
	size int64
}

// NewCredentials returns the credentials of the file at path, read again
// when it changes if reload is set.
func NewCredentials(path string, reload bool) *Credentials {
	return &Credentials{path: path, reload: reload}
}

// Header returns "Basic base64(username:password)".
func (c *Credentials) Header() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.loaded && !c.reload {
		return c.header, nil
	}
	info, err := os.Stat(c.path)
	switch {
	case c.loaded && errors.Is(err, fs.ErrNotExist):
		return c.header, nil
	case err != nil:
		return "", c.fail(err)
	}
	stamp := fileStamp{mod: info.ModTime(), size: info.Size()}
	if c.loaded && stamp == c.stamp {
		return c.header, nil
	}
	header, err := c.read()
	if err != nil {
		return "", c.fail(err)
	}
	c.header, c.stamp, c.loaded = header, stamp, true
	return header, nil
}

// read parses the file: both keys must be there.
func (c *Credentials) read() (string, error) {
	f, err := os.Open(c.path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	entries, err := javaprops.Parse(f)
	if err != nil {
		return "", err
	}
	vals := map[string]string{}
	for _, e := range entries {
		vals[e.Key] = e.Value
	}
	user, okU := vals["username"]
	pass, okP := vals["password"]
	if !okU || !okP {
		return "", errors.New("it provides no username and password (a properties file with username=… and password=…)")
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass)), nil
}

func (c *Credentials) fail(err error) error {
	return fmt.Errorf("Could not read the Kafka Connect credentials file %s (ksql.connect.basic.auth.credentials.file): %v", c.path, err)
}
