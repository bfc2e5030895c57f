package backend

import (
	"context"
	"net"
	"testing"

	openai "github.com/sashabaranov/go-openai"

	"tandem/internal/modeltest"
)

// deadURL is an http address where nothing listens.
func deadURL(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return "http://" + addr + "/v1"
}

func okTool() modeltest.Reply {
	return modeltest.Reply{ToolCalls: []openai.ToolCall{{ID: "c1", Type: "function",
		Function: openai.FunctionCall{Name: "answer", Arguments: `{"word":"OK"}`}}}}
}

// TestTestFormTestsTheFormNotTheSavedProfile: a dead URL in the form fails
// at "connect" even though the saved profile's server works.
func TestTestFormTestsTheFormNotTheSavedProfile(t *testing.T) {
	srv := modeltest.NewFunc(t, func(modeltest.Request) modeltest.Reply { return okTool() })
	a := testApp(t)
	p, err := a.SaveProfile(Profile{Name: "local", BaseURL: srv.URL, Model: "m", Dialect: "tools"}, "sk-saved-key-0000")
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.TestForm(context.Background(), p, "")
	if err != nil || !res.OK {
		t.Fatalf("saved URL: %+v %v", res, err)
	}
	// The key field untouched: the saved key is sent.
	if got := srv.Requests()[0].Header.Get("Authorization"); got != "Bearer sk-saved-key-0000" {
		t.Fatalf("authorization %q", got)
	}
	reqs := srv.Requests()
	if len(reqs[0].Images()) != 1 || len(reqs[0].Chat.Tools) != 1 {
		t.Fatalf("want one image and one tool, got %d images %d tools", len(reqs[0].Images()), len(reqs[0].Chat.Tools))
	}
	// A typed key replaces the saved one for the test.
	if res, _ := a.TestForm(context.Background(), p, "sk-typed-key-1111"); !res.OK {
		t.Fatalf("%+v", res)
	}
	if got := srv.Requests()[len(srv.Requests())-1].Header.Get("Authorization"); got != "Bearer sk-typed-key-1111" {
		t.Fatalf("authorization %q", got)
	}
	form := p
	form.BaseURL = deadURL(t)
	res, err = a.TestForm(context.Background(), form, "")
	if err != nil || res.OK || res.Stage != "connect" {
		t.Fatalf("dead URL in the form: %+v %v", res, err)
	}
}

func TestTestFormSaysWhichPartFailed(t *testing.T) {
	cases := []struct {
		name, dialect, stage string
		serve                func(modeltest.Request) modeltest.Reply
	}{
		{"refuses images", "tools", "image", func(r modeltest.Request) modeltest.Reply {
			if len(r.Images()) > 0 {
				return modeltest.Reply{Status: 400, Message: "this model does not support image input"}
			}
			if len(r.Chat.Tools) > 0 {
				return okTool()
			}
			return modeltest.Reply{Content: "OK"}
		}},
		{"refuses tools", "tools", "tools", func(r modeltest.Request) modeltest.Reply {
			if len(r.Chat.Tools) > 0 {
				return modeltest.Reply{Status: 400, Message: "tools are not supported"}
			}
			return modeltest.Reply{Content: "OK"}
		}},
		{"ignores tools", "tools", "tools", func(r modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Content: "OK"}
		}},
		{"refuses the key", "tools", "key", func(r modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 401, Message: "invalid api key"}
		}},
		{"unknown model", "json", "model", func(r modeltest.Request) modeltest.Reply {
			return modeltest.Reply{Status: 404, Message: "model not found"}
		}},
		{"json needs no tools", "json", "", func(r modeltest.Request) modeltest.Reply {
			if len(r.Chat.Tools) > 0 {
				return modeltest.Reply{Status: 400, Message: "tools are not supported"}
			}
			return modeltest.Reply{Content: "OK"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			srv := modeltest.NewFunc(t, c.serve)
			a := testApp(t)
			res, err := a.TestForm(context.Background(), Profile{Name: "x", BaseURL: srv.URL, Model: "m", Dialect: c.dialect}, "sk-x")
			if err != nil {
				t.Fatal(err)
			}
			if c.stage == "" {
				if !res.OK {
					t.Fatalf("%+v", res)
				}
				return
			}
			if res.OK || res.Stage != c.stage || res.Message == "" {
				t.Fatalf("want stage %s: %+v", c.stage, res)
			}
		})
	}
}

// TestTestFormRejectsAnInvalidForm: what the form says wrong is named by
// field, before any call.
func TestTestFormRejectsAnInvalidForm(t *testing.T) {
	a := testApp(t)
	res, err := a.TestForm(context.Background(), Profile{Name: "x", BaseURL: "not a url", Model: "m", Dialect: "tools"}, "")
	if err != nil || res.OK || res.Stage != "form" || res.Field != "base_url" {
		t.Fatalf("%+v %v", res, err)
	}
}
