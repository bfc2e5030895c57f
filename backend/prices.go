package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"tandem/engine/model"
)

// pricesFile is the person's price table in the settings directory: prices
// change faster than releases, so it is a file they can edit.
const pricesFile = "prices.json"

// loadPrices reads the price table from dir, writing the built-in one there
// when there is none so it can be found and edited. A damaged file is left
// as it is (it holds the person's edits) and the built-in table is used,
// with a warning that says so.
func loadPrices(dir string) (*model.PriceTable, string) {
	path := filepath.Join(dir, pricesFile)
	t, err := model.LoadPricesFile(path)
	switch {
	case err == nil:
		return t, ""
	case errors.Is(err, fs.ErrNotExist):
		t = model.DefaultPrices()
		if b, err := json.MarshalIndent(t, "", "  "); err == nil {
			if os.MkdirAll(dir, 0o700) == nil {
				_ = os.WriteFile(path, append(b, '\n'), 0o600)
			}
		}
		return t, ""
	}
	return model.DefaultPrices(), fmt.Sprintf("%s could not be read (%v); the built-in prices are used until it is fixed", path, err)
}
