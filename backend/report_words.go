package backend

import (
	"fmt"
	"strconv"
	"strings"

	"tandem/engine"
	"tandem/engine/model"
)

// reportWords are the report's own words in one language: a report made
// for the person (the window's Open and Save) is in the language they read
// (Backend.UILang); one made for another program (MCP) is in English. What
// the model, the person or the device said stays as it was said.
type reportWords struct {
	Lang, Title, FirstGoal, Device, Started, Model, Made, ByTandem string
	ByPerson, ByAgent, Replayed, ScreenBefore, NoSteps             string
	steps, calls, tokens                                           func(n int) string
	states                                                         map[engine.State]string
	acts                                                           map[string]string
	stopAfter                                                      func(n int) string
	asked                                                          func(q string) string
	// target names the element a confirmation was about ("Press “Pay ¥99”"),
	// in the words the confirmation dialog used.
	target     func(label string) string
	stoppedFor func(r *engine.Request) string
	// reasons words an end the engine gave itself (engine.Result.Why).
	reasons func(c engine.Cause) string
	// doors words the door a run came in by, when not the window's.
	doors map[string]string
	// Cost names a run's cost ("cost"), CostUnknown a cost no price
	// table knows.
	Cost, CostUnknown string
}

// costWords is what u cost in w's words ("" when nothing was spent):
// the currency's sign as the window shows it, never a made-up 0.
func costWords(u model.Usage, w reportWords) string {
	signs := map[string]string{"USD": "$", "CNY": "¥", "EUR": "€", "GBP": "£", "JPY": "¥"}
	switch {
	case u.Unpriced && u.Cost == 0:
		return w.Cost + " " + w.CostUnknown
	case u.Cost == 0:
		return ""
	}
	prec := 2
	if u.Cost < 1 {
		prec = 4
	}
	amount := strconv.FormatFloat(u.Cost, 'f', prec, 64)
	money := amount + " " + u.Currency
	if s, ok := signs[u.Currency]; ok {
		money = s + amount
	}
	if u.Unpriced {
		money = "≥" + money
	}
	return w.Cost + " " + money
}

// joinDot joins the parts that are not empty with " · ".
func joinDot(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, " · ")
}

func englishPlural(n int, one, other string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, other)
}

var reportEnglish = reportWords{
	Lang: "en", Title: "Tandem report", FirstGoal: "The person changed the goal; first asked:", Device: "Device",
	Started: "started", Model: "model", Made: "report made", ByTandem: "by Tandem",
	ByPerson: "by the person", ByAgent: "by the agent", Replayed: "replayed from an earlier run, no model", ScreenBefore: "screen before step", NoSteps: "No steps were taken.",
	steps:  func(n int) string { return englishPlural(n, "step", "steps") },
	calls:  func(n int) string { return englishPlural(n, "model call", "model calls") },
	tokens: func(n int) string { return englishPlural(n, "token", "tokens") },
	states: map[engine.State]string{engine.Done: "Done", engine.Failed: "Failed", engine.Stopped: "Stopped"},
	acts: map[string]string{"pause": "Paused the task", "resume": "Continued the task", "take_over": "Took over",
		"hand_back": "Handed back", "stop": "Stopped the task", "confirm": "Allowed", "deny": "Denied", "answer": "Answered",
		"edit_goal": "Changed the goal", "edit_pending": "Edited the plan"},
	stopAfter:  func(n int) string { return "Asked to stop after " + englishPlural(n, "more step", "more steps") },
	asked:      func(q string) string { return "The agent asked: “" + q + "”" },
	target:     func(label string) string { return "Press “" + label + "”" },
	stoppedFor: func(r *engine.Request) string { return "The run had stopped: " + r.Message },
	reasons:    func(c engine.Cause) string { return c.String() },
	doors:      map[string]string{"run": "from the command line", "mcp": "started by another agent (MCP)"},
	Cost:       "cost", CostUnknown: "unknown (no price for this model)",
}

var reportChinese = reportWords{
	Lang: "zh-CN", Title: "Tandem 报告", FirstGoal: "目标被修改过；最初的目标：", Device: "设备",
	Started: "开始于", Model: "模型", Made: "报告生成于", ByTandem: "由 Tandem 生成",
	ByPerson: "由你操作", ByAgent: "由智能体操作", Replayed: "重放先前运行的步骤，未调用模型", ScreenBefore: "步骤之前的屏幕", NoSteps: "没有执行任何步骤。",
	steps:  func(n int) string { return fmt.Sprintf("%d 步", n) },
	calls:  func(n int) string { return fmt.Sprintf("%d 次模型调用", n) },
	tokens: func(n int) string { return fmt.Sprintf("%d 个 token", n) },
	states: map[engine.State]string{engine.Done: "已完成", engine.Failed: "失败", engine.Stopped: "已停止"},
	acts: map[string]string{"pause": "暂停了任务", "resume": "继续了任务", "take_over": "接管了操作",
		"hand_back": "交还了控制", "stop": "停止了任务", "confirm": "允许了", "deny": "拒绝了", "answer": "回答了",
		"edit_goal": "修改了目标", "edit_pending": "修改了计划"},
	stopAfter: func(n int) string { return fmt.Sprintf("要求再执行 %d 步后停止", n) },
	asked:     func(q string) string { return "智能体问：“" + q + "”" },
	target:    func(label string) string { return "点击“" + label + "”" },
	stoppedFor: func(r *engine.Request) string {
		t, ok := map[engine.RequestKind]string{engine.AskLoop: "智能体似乎卡住了", engine.AskBudget: "预算已用完",
			engine.AskModelError: "模型没有正常响应", engine.AskDevice: "设备出现问题", engine.AskTakeOver: "智能体请你接管",
			engine.AskConfirm: "请确认敏感操作"}[r.Kind]
		if !ok {
			return "任务曾停下来询问：" + r.Message
		}
		if r.Cause != nil && r.Cause.Code == engine.CauseModelUnreachable {
			return t + "：模型服务（" + r.Cause.Detail + "）没有响应"
		}
		return t
	},
	reasons: func(c engine.Cause) string {
		switch c.Code {
		case engine.CauseStoppedByPerson:
			return "你停止了任务"
		case engine.CauseStoppedGracefully:
			return "已在你允许的步骤之后停止"
		case engine.CauseTimeLimit:
			return "已达到时间上限（" + c.N + "）"
		case engine.CauseDenied:
			return "你拒绝了这个操作，它没有执行"
		case engine.CauseLabelsUnread, engine.CauseAppUnread, engine.CauseWindowsUnread:
			return map[string]string{engine.CauseLabelsUnread: "无法读取屏幕上的文字", engine.CauseAppUnread: "无法读取前台应用",
				engine.CauseWindowsUnread: "无法读取这台电脑的窗口"}[c.Code] + "：" + c.Detail
		case engine.CauseStoppedByClient:
			return c.Detail + " 取消了调用，任务已停止"
		case engine.CauseDeviceAway:
			return "设备离开超过 " + c.N + "（" + c.Detail + "）"
		}
		return c.String()
	},
	doors: map[string]string{"run": "从命令行启动", "mcp": "由其他智能体（MCP）启动"},
	Cost:  "费用", CostUnknown: "未知（该模型没有价格）",
}

// reportWordsFor is the report's words in lang ("zh-CN" or else English).
func reportWordsFor(lang string) reportWords {
	if lang == "zh-CN" {
		return reportChinese
	}
	return reportEnglish
}
