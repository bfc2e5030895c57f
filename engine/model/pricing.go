package model

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Price is what one model costs per million tokens.
type Price struct {
	Input    float64 `json:"input"`  // per 1M prompt tokens
	Output   float64 `json:"output"` // per 1M completion tokens
	Currency string  `json:"currency"`
}

// PriceTable maps model names to prices. The person edits it (a JSON file
// in the settings directory): prices change faster than releases. A name
// ending in "*" matches every model with that prefix; the longest match
// wins. Models not in the table cost zero (local models usually do).
type PriceTable struct {
	Models map[string]Price `json:"models"`
}

// DefaultPrices is the starting table. Figures are list prices per 1M
// tokens as published by each provider; the person is expected to check them.
func DefaultPrices() *PriceTable {
	return &PriceTable{Models: map[string]Price{
		"gpt-4o":              {Input: 2.5, Output: 10, Currency: "USD"},
		"gpt-4o-mini":         {Input: 0.15, Output: 0.6, Currency: "USD"},
		"gpt-4.1":             {Input: 2, Output: 8, Currency: "USD"},
		"qwen-vl-max":         {Input: 3, Output: 9, Currency: "CNY"},
		"autoglm-*":           {Input: 0, Output: 0, Currency: "CNY"},
		"doubao-1.5-ui-tars*": {Input: 3.5, Output: 12, Currency: "CNY"},
	}}
}

// LoadPrices reads a table from JSON: {"models":{"name":{"input":..,"output":..,"currency":".."}}}.
func LoadPrices(r io.Reader) (*PriceTable, error) {
	var t PriceTable
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	}
	for name, p := range t.Models {
		if p.Input < 0 || p.Output < 0 {
			return nil, fmt.Errorf("price table: %q has a negative price", name)
		}
	}
	return &t, nil
}

// LoadPricesFile reads a table from a JSON file.
func LoadPricesFile(path string) (*PriceTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("price table: %w", err)
	}
	defer f.Close()
	return LoadPrices(f)
}

// Lookup returns the price for model and whether there is one.
func (t *PriceTable) Lookup(model string) (Price, bool) {
	if t == nil {
		return Price{}, false
	}
	if p, ok := t.Models[model]; ok {
		return p, true
	}
	best, found := -1, Price{}
	for name, p := range t.Models {
		prefix, ok := strings.CutSuffix(name, "*")
		if ok && strings.HasPrefix(model, prefix) && len(prefix) > best {
			best, found = len(prefix), p
		}
	}
	return found, best >= 0
}

// Cost prices u for model in the table's currency for that model.
func (t *PriceTable) Cost(model string, u Usage) float64 {
	p, ok := t.Lookup(model)
	if !ok {
		return 0
	}
	return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
}
