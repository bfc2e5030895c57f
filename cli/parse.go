package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"image"
	"io"
	"os"
	"strings"

	"tandem/engine/action"
	"tandem/engine/model"
	"tandem/engine/model/dialect"
)

// runParse is `tandem parse --dialect D [--variant V] --screen WxH
// [--image WxH] [--state FILE] FILE|-`: one raw model reply in, one JSON
// object {"thought","actions"} out. --state gives the compact UI state
// (`tandem compress` output) the json dialect's indexes refer to.
func runParse(_ context.Context, env Env) int {
	fs := flag.NewFlagSet("parse", flag.ContinueOnError)
	fs.SetOutput(env.Stderr)
	name := fs.String("dialect", "", "dialect: "+strings.Join(dialect.Names, ", "))
	variant := fs.String("variant", "", "variant (uitars 1.0|1.5|doubao; tools/json rel1000|rel999|abs)")
	screen := fs.String("screen", "", "device screen size WxH")
	img := fs.String("image", "", "size of the image the model saw, WxH (default: the screen)")
	state := fs.String("state", "", "compact UI state JSON (json dialect element indexes)")
	if code, ok := parseFlags(fs, env.Args); !ok {
		return code
	}
	usageErr := func(format string, args ...any) int {
		fmt.Fprintf(env.Stderr, "parse: "+format+"\n", args...)
		return ExitUsage
	}
	if fs.NArg() != 1 {
		return usageErr("want exactly one FILE or -")
	}
	d, err := dialect.New(*name, *variant)
	if err != nil {
		return usageErr("%v", err)
	}
	g := model.Geometry{}
	if g.Screen, err = action.ParseSize(*screen); err != nil {
		return usageErr("--screen: %v", err)
	}
	if *img != "" {
		if g.Image, err = action.ParseSize(*img); err != nil {
			return usageErr("--image: %v", err)
		}
	}
	if *state != "" {
		if g.Elements, err = readState(*state); err != nil {
			return usageErr("--state: %v", err)
		}
	}
	var raw []byte
	if fs.Arg(0) == "-" {
		raw, err = io.ReadAll(env.Stdin)
	} else {
		raw, err = os.ReadFile(fs.Arg(0))
	}
	if err != nil {
		return usageErr("%v", err)
	}
	p, err := d.Parse(replyOf(raw), g)
	if err != nil {
		var pe *model.ParseError
		if errors.As(err, &pe) {
			fmt.Fprintln(env.Stderr, "parse error: "+strings.ReplaceAll(pe.Reason, "\n", " "))
		} else {
			fmt.Fprintln(env.Stderr, "parse error: "+strings.ReplaceAll(err.Error(), "\n", " "))
		}
		return ExitUsage
	}
	out := struct {
		Thought  string          `json:"thought"`
		Actions  []action.Action `json:"actions"`
		Salvaged string          `json:"salvaged,omitempty"`
	}{p.Thought, p.Actions, p.Salvaged}
	b, err := json.Marshal(out)
	if err != nil {
		return usageErr("%v", err)
	}
	fmt.Fprintln(env.Stdout, string(b))
	return ExitOK
}

// replyOf reads the input as a chat-completion response body or message
// (with tool_calls) when it is one, else as the raw reply text.
func replyOf(raw []byte) model.Reply {
	if r, ok := model.ReplyOfJSON(raw); ok {
		return r
	}
	return model.Reply{Content: string(raw)}
}

// readState reads the elements' bounds from a compact UI state file.
func readState(path string) (map[int]image.Rectangle, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var st struct {
		Elements []struct {
			I      int    `json:"i"`
			Bounds [4]int `json:"bounds"`
		} `json:"elements"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("not a compact UI state: %w", err)
	}
	out := map[int]image.Rectangle{}
	for _, e := range st.Elements {
		out[e.I] = image.Rect(e.Bounds[0], e.Bounds[1], e.Bounds[2], e.Bounds[3])
	}
	return out, nil
}
