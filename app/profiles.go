package app

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"tandem/engine/model/dialect"
)

// FieldError is a profile field's problem, named so the form can show it
// next to that field.
type FieldError struct {
	Field string // the Profile's JSON name: name, base_url, model, dialect, variant, temperature, top_p, context_tokens, max_tokens
	Msg   string
}

func (e *FieldError) Error() string { return e.Msg }

func fieldErr(field, format string, args ...any) error {
	return &FieldError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// validate checks a profile before it is stored, with messages that say
// what to fix.
func (p Profile) validate() (Profile, error) {
	p.Name = strings.TrimSpace(p.Name)
	p.BaseURL = strings.TrimSpace(p.BaseURL)
	p.Model = strings.TrimSpace(p.Model)
	if p.Name == "" {
		return p, fieldErr("name", "give the model a name")
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return p, fieldErr("base_url", "the base URL %q is not an http(s) address like https://api.openai.com/v1", p.BaseURL)
	}
	if u.User != nil {
		return p, fieldErr("base_url", "put the API key in the key field, not in the base URL")
	}
	if p.Model == "" {
		return p, fieldErr("model", "type the model's name, as the provider spells it")
	}
	if _, ok := dialect.Variants[p.Dialect]; !ok {
		return p, fieldErr("dialect", "unknown reply format %q", p.Dialect)
	}
	v, err := dialect.Resolve(p.Dialect, p.Variant)
	if err != nil {
		return p, fieldErr("variant", "the %s format has no variant %q", p.Dialect, p.Variant)
	}
	p.Variant = v
	if t := p.Temperature; t != nil && (*t < 0 || *t > 2) {
		return p, fieldErr("temperature", "temperature %g is outside 0–2", *t)
	}
	if t := p.TopP; t != nil && (*t <= 0 || *t > 1) {
		return p, fieldErr("top_p", "top_p %g must be above 0 and at most 1", *t)
	}
	if p.ContextTokens != 0 && (p.ContextTokens < 2048 || p.ContextTokens > 10_000_000) {
		return p, fieldErr("context_tokens", "context length %d is not a model's context (2048 or more; 0 keeps 32768)", p.ContextTokens)
	}
	if p.MaxTokens < 0 {
		return p, fieldErr("max_tokens", "max tokens cannot be negative (0 keeps the model's default)")
	}
	return p, nil
}

func newProfileID() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "m-" + hex.EncodeToString(b)
}

// Profiles lists the model profiles (keys masked).
func (a *SettingsAPI) Profiles() (_ []Profile, err error) {
	defer toUI(&err)
	s, _, err := a.settings.Load()
	return s.Profiles, err
}

// SaveProfile stores a profile. apiKey replaces the stored key when not
// empty; it is never returned, only its masked form.
func (a *SettingsAPI) SaveProfile(p Profile, apiKey string) (_ Profile, err error) {
	defer toUI(&err)
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
func (a *SettingsAPI) DeleteProfile(id string) (err error) {
	defer toUI(&err)
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
func (a *App) profile(id string) (Profile, string, error) {
	s, _, err := a.settings.Load()
	if err != nil {
		return Profile{}, "", err
	}
	for _, p := range s.Profiles {
		if p.ID == id {
			key, err := a.secrets.Get(id)
			if err != nil && !errors.Is(err, ErrNoSecret) {
				return p, "", err
			}
			return p, key, nil
		}
	}
	return Profile{}, "", errors.New("no model is set up: open Settings → Models and add one")
}

// SavedProfile is a saved model profile with its API key, for the command
// line (`tandem run --profile NAME`), which has no window.
type SavedProfile struct {
	Profile
	APIKey string
}

// LookupProfile finds the profile called name (or with that id) in cfg's
// settings, with its stored key; "" is the active profile.
func LookupProfile(cfg Config, name string) (SavedProfile, error) {
	s, _, err := NewSettingsStore(cfg.ConfigDir).Load()
	if err != nil {
		return SavedProfile{}, err
	}
	if name == "" {
		name = s.ActiveProfile
	}
	var names []string
	for _, p := range s.Profiles {
		names = append(names, p.Name)
		if p.Name != name && p.ID != name {
			continue
		}
		key, err := NewSecrets(cfg.ConfigDir).Get(p.ID)
		if err != nil && !errors.Is(err, ErrNoSecret) {
			return SavedProfile{}, fmt.Errorf("read the API key of %q: %w", p.Name, err)
		}
		return SavedProfile{Profile: p, APIKey: key}, nil
	}
	if len(names) == 0 {
		return SavedProfile{}, fmt.Errorf("no saved model profile called %q: none is saved in %s", name, cfg.ConfigDir)
	}
	return SavedProfile{}, fmt.Errorf("no saved model profile called %q (saved: %s)", name, strings.Join(names, ", "))
}
