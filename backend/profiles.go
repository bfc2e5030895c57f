package backend

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"strings"

	"tandem/engine/model/dialect"
)

// FieldError is a profile field's problem, named so the form can show it
// next to that field.
type FieldError struct {
	Field string // the Profile's JSON name: name, base_url, model, dialect, variant, temperature, top_p, context_tokens, max_tokens, max_in_flight
	// Rule names the check that failed, for the UI to word (the Said code
	// "field.<rule>", one of FieldRules); Value is the value it refused.
	Rule  string
	Value string
	Msg   string
}

// FieldRules are the checks a profile can fail, each a Said code
// "field.<rule>".
var FieldRules = []string{"name_empty", "base_url_not_http", "base_url_has_key", "model_empty", "dialect_unknown",
	"variant_unknown", "temperature_range", "top_p_range", "context_tokens_range", "max_tokens_negative", "max_in_flight_range", "stop_hotkey"}

func (e *FieldError) Error() string { return e.Msg }

func fieldErr(field, rule, value, format string, args ...any) error {
	return &FieldError{Field: field, Rule: rule, Value: value, Msg: fmt.Sprintf(format, args...)}
}

// validate checks a profile before it is stored, with messages that say
// what to fix.
func (p Profile) validate() (Profile, error) { return p.check(false) }

// check is validate; anyModel lets the model's name be empty, for a model
// a door gave in full (a local server that serves one model takes any
// name, as the command line's --model allows).
func (p Profile) check(anyModel bool) (Profile, error) {
	p.Name = strings.TrimSpace(p.Name)
	p.BaseURL = strings.TrimSpace(p.BaseURL)
	p.Model = strings.TrimSpace(p.Model)
	if p.Name == "" {
		return p, fieldErr("name", "name_empty", "", "give the model a name")
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return p, fieldErr("base_url", "base_url_not_http", p.BaseURL, "the base URL %q is not an http(s) address like https://api.openai.com/v1", p.BaseURL)
	}
	if u.User != nil {
		return p, fieldErr("base_url", "base_url_has_key", "", "put the API key in the key field, not in the base URL")
	}
	if p.Model == "" && !anyModel {
		return p, fieldErr("model", "model_empty", "", "type the model's name, as the provider spells it")
	}
	if _, ok := dialect.Variants[p.Dialect]; !ok {
		return p, fieldErr("dialect", "dialect_unknown", p.Dialect, "unknown reply format %q", p.Dialect)
	}
	v, err := dialect.Resolve(p.Dialect, p.Variant)
	if err != nil {
		return p, fieldErr("variant", "variant_unknown", p.Variant, "the %s format has no variant %q", p.Dialect, p.Variant)
	}
	p.Variant = v
	if t := p.Temperature; t != nil && (*t < 0 || *t > 2) {
		return p, fieldErr("temperature", "temperature_range", fmt.Sprint(*t), "temperature %g is outside 0–2", *t)
	}
	if t := p.TopP; t != nil && (*t <= 0 || *t > 1) {
		return p, fieldErr("top_p", "top_p_range", fmt.Sprint(*t), "top_p %g must be above 0 and at most 1", *t)
	}
	if p.ContextTokens != 0 && (p.ContextTokens < 2048 || p.ContextTokens > 10_000_000) {
		return p, fieldErr("context_tokens", "context_tokens_range", fmt.Sprint(p.ContextTokens), "context length %d is not a model's context (2048 or more; 0 keeps 32768)", p.ContextTokens)
	}
	if p.MaxTokens < 0 {
		return p, fieldErr("max_tokens", "max_tokens_negative", "", "max tokens cannot be negative (0 keeps the model's default)")
	}
	if p.MaxInFlight < 0 || p.MaxInFlight > maxInFlight {
		return p, fieldErr("max_in_flight", "max_in_flight_range", fmt.Sprint(maxInFlight), "requests at once must be between 0 (no limit) and %d", maxInFlight)
	}
	return p, nil
}

// maxInFlight is the largest limit a profile may set: beyond it the limit
// guards nothing a person could mean.
const maxInFlight = 256

func newProfileID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "m-" + hex.EncodeToString(b)
}

// Profiles lists the model profiles (keys masked).
func (a *Backend) Profiles() (_ []Profile, err error) {
	s, _, err := a.settings.Load()
	return s.Profiles, err
}

// SaveProfile stores a profile. apiKey replaces the stored key when not
// empty; it is never returned, only its masked form.
func (a *Backend) SaveProfile(p Profile, apiKey string) (_ Profile, err error) {
	p, err = p.validate()
	if err != nil {
		return p, err
	}
	apiKey = strings.TrimSpace(apiKey)
	_, err = a.settings.Update(func(s *Settings) error {
		i := -1
		for j, q := range s.Profiles {
			if q.ID == p.ID && p.ID != "" {
				i = j
			}
		}
		if p.ID == "" || i < 0 {
			p.ID = newProfileID()
		}
		if i >= 0 {
			p.KeyMasked = s.Profiles[i].KeyMasked
		}
		if apiKey != "" {
			if err := a.secrets.Set(p.ID, apiKey); err != nil {
				return fmt.Errorf("store the API key: %w", err)
			}
			p.KeyMasked = Masked(apiKey)
		}
		if i >= 0 {
			s.Profiles[i] = p
		} else {
			s.Profiles = append(s.Profiles, p)
		}
		if s.ActiveProfile == "" {
			s.ActiveProfile = p.ID
		}
		return nil
	})
	return p, err
}

// DeleteProfile removes a profile and its stored key.
func (a *Backend) DeleteProfile(id string) (err error) {
	_, err = a.settings.Update(func(s *Settings) error {
		kept := s.Profiles[:0]
		for _, p := range s.Profiles {
			if p.ID != id {
				kept = append(kept, p)
			}
		}
		s.Profiles = kept
		if s.ActiveProfile == id {
			s.ActiveProfile = ""
			if len(kept) > 0 {
				s.ActiveProfile = kept[0].ID
			}
		}
		return a.secrets.Delete(id)
	})
	return err
}

// profile returns a stored profile and its key ("" when none is stored).
func (a *Backend) profile(id string) (Profile, string, error) {
	s, _, err := a.settings.Load()
	if err != nil {
		return Profile{}, "", err
	}
	return a.findProfile(s, id)
}
