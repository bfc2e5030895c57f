package dialect

import (
	"encoding/json"
	"errors"
	"flag"
	"image"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tandem/engine/action"
	"tandem/engine/model"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// goldenCase is one real reply and how it is parsed (SOURCES.md says why).
type goldenCase struct {
	file    string // under testdata/replies
	dialect string
	variant string
	screen  action.Size
	image   action.Size
}

var phone = action.Size{W: 1080, H: 2400}

// jsonElements is a small UI state for the json dialect's index lookups.
var jsonElements = map[int]image.Rectangle{0: image.Rect(40, 100, 1040, 220), 1: image.Rect(0, 300, 1080, 500)}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"autoglm/01_readme_expected_launch_jd.txt", "autoglm", "", phone, action.Size{}},
		{"autoglm/08_autoglmjs_fixture_multiline_type.txt", "autoglm", "", phone, action.Size{}},
		{"autoglm/09_autoglmjs_fixture_finish_multiline.txt", "autoglm", "", phone, action.Size{}},
		{"autoglm/10_pr286_type_nested_double_quotes.txt", "autoglm", "", phone, action.Size{}},
		{"autoglm/11_midscene_fixture_finish_nested_quotes.txt", "autoglm", "", phone, action.Size{}},
		{"openai/01_qwen25vl7b_mobile_use_en_toolcall.txt", "tools", "abs", phone, action.Size{W: 1092, H: 2408}},
		{"openai/02_qwen25vl7b_mobile_use_zh_toolcall.txt", "tools", "abs", action.Size{W: 720, H: 1280}, action.Size{W: 728, H: 1288}},
		{"openai/03_qwen3vl235b_mobile_use_thought_action_toolcall.txt", "tools", "rel999", phone, action.Size{}},
		{"uitars/01_uitars_readme_deploy_expected_output.txt", "uitars", "1.5", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/02_uitars_training_example_box_tokens_first.txt", "uitars", "1.0", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/03_uitars_training_example_box_tokens_target.txt", "uitars", "1.0", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/14_fixture_reflection_left_double_bare_4nums.txt", "uitars", "1.0", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/15_fixture_type_content_literal_newline.txt", "uitars", "1.0", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/16_fixture_action_summary_minimize.txt", "uitars", "1.0", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/17_fixture_baidu_six_actions_point_tags.txt", "uitars", "doubao", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/18_fixture_think_plus_thought_point.txt", "uitars", "doubao", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"uitars/19_fixture_thought_contains_action_text.txt", "uitars", "1.0", phone, action.Size{}},
		{"uitars/20_fixture_bbox_637_964_chinese.txt", "uitars", "doubao", action.Size{W: 2560, H: 1440}, action.Size{}},
		{"uitars/21_fixture_type_escaped_quotes_backslash_n.txt", "uitars", "1.0", phone, action.Size{}},
		{"uitars/22_fixture_omni_open_computer.txt", "uitars", "doubao", phone, action.Size{}},
		{"uitars/23_fixture_omni_answer_finished.txt", "uitars", "doubao", phone, action.Size{}},
		{"uitars/24_fixture_seed_xml_tool_call_three_actions.txt", "uitars", "doubao", phone, action.Size{}},
		{"uitars/25_midscene_fixture_finished_no_content.txt", "uitars", "1.0", phone, action.Size{}},
		{"uitars/26_fixture_omni_think_never_used_point.txt", "uitars", "doubao", action.Size{W: 1920, H: 1080}, action.Size{}},
		{"json/01_seed003_click_index.txt", "json", "", phone, action.Size{}},
		{"json/02_seed003_input_fenced.txt", "json", "", phone, action.Size{}},
		{"json/03_seed003_swipe.txt", "json", "", phone, action.Size{}},
		{"json/04_seed003_finish_no_summary.txt", "json", "", phone, action.Size{}},
	}
}

// goldenResult is what a golden file holds: the parse or the error.
type goldenResult struct {
	Thought  string          `json:"thought,omitempty"`
	Actions  []action.Action `json:"actions,omitempty"`
	Salvaged string          `json:"salvaged,omitempty"`
	Error    string          `json:"error,omitempty"`
}

func parseCase(t testing.TB, c goldenCase, raw string) goldenResult {
	d, err := New(c.dialect, c.variant)
	if err != nil {
		t.Fatal(err)
	}
	g := model.Geometry{Screen: c.screen, Image: c.image}
	if c.dialect == "json" {
		g.Elements = jsonElements
	}
	p, err := d.Parse(model.Reply{Content: raw}, g)
	if err != nil {
		var pe *model.ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: error is %T, want *model.ParseError", c.file, err)
		}
		return goldenResult{Error: pe.Reason}
	}
	return goldenResult{Thought: p.Thought, Actions: p.Actions, Salvaged: p.Salvaged}
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases() {
		t.Run(c.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join("testdata/replies", c.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(parseCase(t, c, string(raw)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata/golden", strings.TrimSuffix(c.file, ".txt")+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update)", err)
			}
			if strings.TrimSpace(string(want)) != string(got) {
				t.Errorf("parse of %s:\n got %s\nwant %s", c.file, got, want)
			}
		})
	}
}
