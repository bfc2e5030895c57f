package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"time"
)

// damagedFile is where a repaired record's damaged original is kept, byte
// for byte, beside the repaired one.
const damagedFile = "record.damaged.jsonl"

// readForResume reads the record in dir for Resume. A record whose start
// line is damaged (ErrDamagedRecord) is repaired when cfg gives what that
// line held, the goal and the device: a new start line from cfg, then
// every line that could be read; the original is kept as damagedFile.
// Without them the error says what is missing.
func readForResume(dir string, cfg Config) ([]Entry, int64, error) {
	entries, good, err := ReadRecord(dir)
	if !errors.Is(err, ErrDamagedRecord) {
		return entries, good, err
	}
	if cfg.Goal == "" || cfg.DeviceID == "" {
		return nil, 0, fmt.Errorf("%w; it can be resumed from what could be read once its goal and its device are given again", err)
	}
	if err := repairStart(dir, entries, cfg); err != nil {
		return nil, 0, fmt.Errorf("engine: repair the record in %s: %w", dir, err)
	}
	return ReadRecord(dir)
}

// repairStart rewrites the record in dir as a start line made from cfg
// followed by entries. The settings the lost line held are unknown: cfg's,
// or the defaults with the default policy, so a payment still asks.
func repairStart(dir string, entries []Entry, cfg Config) error {
	set := cfg.Settings
	if reflect.DeepEqual(set, Settings{}) {
		set.Policy = DefaultPolicy()
	}
	set = set.withDefaults()
	start := Entry{T: time.Now(), Kind: recStart, ID: filepath.Base(dir), Goal: cfg.Goal, Settings: &set, Device: cfg.DeviceID}
	if len(entries) > 0 {
		start.T = entries[0].T
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, e := range append([]Entry{start}, entries...) {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	path := filepath.Join(dir, recordFile)
	tmp := path + ".repair"
	if err := os.WriteFile(tmp, b.Bytes(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(path, filepath.Join(dir, damagedFile)); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, path)
}
