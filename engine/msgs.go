package engine

import "tandem/engine/action"

// A type per event (bubbletea's Msg): the core decides on these, each
// carrying only what its event has. They are what travels on the run's
// channel: a command of the person's, built by its method on Run
// (run.go: command), and each piece of work's result, posted by the work.

// msg is one event for the core: a command of the person's or the result
// of a piece of work.
type msg interface{ trigger() Trigger }

// cmdFrom is what every command carries: where its answer goes (nil: no
// one waits), and who gave it when not the person at the door (Via).
type cmdFrom struct {
	reply chan error
	via   string
}

func (c *cmdFrom) setFrom(from cmdFrom) { *c = from }

func (c cmdFrom) replyTo() chan error { return c.reply }

func (c cmdFrom) viaOf() string { return c.via }

// fromSetter is a command's type, given where its answer goes and who
// gave it as it is sent (run.go: command).
type fromSetter[T any] interface {
	*T
	setFrom(cmdFrom)
}

// replyOf is where m's answer goes (nil: a result, or no one waits).
func replyOf(m msg) chan error {
	if c, ok := m.(interface{ replyTo() chan error }); ok {
		return c.replyTo()
	}
	return nil
}

type (
	msgStart    struct{ cmdFrom }
	msgPause    struct{ cmdFrom }
	msgResume   struct{ cmdFrom }
	msgTakeOver struct{ cmdFrom }
	msgConfirm  struct{ cmdFrom }
	msgHandBack struct {
		cmdFrom
		note   string
		region *Region
	}
	msgStop struct {
		cmdFrom
		cause *Cause // why, when the stop is not the person's (StopFor)
	}
	msgStopGracefully struct {
		cmdFrom
		n int
	}
	msgDeny struct {
		cmdFrom
		reason string
	}
	msgAnswer struct {
		cmdFrom
		text string
	}
	msgEditGoal struct {
		cmdFrom
		goal string
	}
	msgEditPending struct {
		cmdFrom
		actions []action.Action
	}
	msgManualInput struct {
		cmdFrom
		act  action.Action
		done bool // the input already happened on the device (InputDone)
	}

	msgPlanned struct {
		of
		res *planResult
	}
	msgActionDone struct {
		of
		res *actResult
	}
	msgStable struct {
		of
		res *stableResult
	}
	msgGlimpse struct {
		of
		res *stableResult
	}
	msgDeviceLost struct {
		of
		err error
	}
	msgDeviceBack struct{ of }
	msgDeviceAway struct {
		of
		left  int // seconds before the run gives up; 0: it has
		cause error
	}
	msgManualDone struct{ res *manualResult }
	msgDropped    struct{ res *planResult }
)

// of is the invocation a result reports on (the id the interpreter gave
// it as it started it, chart_invoke.go): a result of an invocation that
// is no longer running, its state left, reaches no row.
type of struct{ id uint64 }

func (o of) invocation() uint64 { return o.id }

// result is an event that reports on an invocation: its id, and whether
// it is its last word (then the invocation is over).
type result interface {
	msg
	invocation() uint64
	last() bool
}

func (msgPlanned) last() bool    { return true }
func (msgActionDone) last() bool { return true }
func (msgStable) last() bool     { return true }
func (msgGlimpse) last() bool    { return false } // the wait goes on
func (msgDeviceLost) last() bool { return true }
func (msgDeviceBack) last() bool { return true }
func (m msgDeviceAway) last() bool {
	return m.left == 0 // a countdown goes on; the end is the timeout's (or a watch's that gave up)
}

func (msgStart) trigger() Trigger          { return OnStart }
func (msgPause) trigger() Trigger          { return OnPause }
func (msgResume) trigger() Trigger         { return OnResume }
func (msgTakeOver) trigger() Trigger       { return OnTakeOver }
func (msgConfirm) trigger() Trigger        { return OnConfirm }
func (msgHandBack) trigger() Trigger       { return OnHandBack }
func (msgStop) trigger() Trigger           { return OnStop }
func (msgStopGracefully) trigger() Trigger { return OnStopGracefully }
func (msgDeny) trigger() Trigger           { return OnDeny }
func (msgAnswer) trigger() Trigger         { return OnAnswer }
func (msgEditGoal) trigger() Trigger       { return OnEditGoal }
func (msgEditPending) trigger() Trigger    { return OnEditPending }
func (msgManualInput) trigger() Trigger    { return OnManualInput }
func (msgPlanned) trigger() Trigger        { return OnPlanned }
func (msgActionDone) trigger() Trigger     { return OnActionDone }
func (msgStable) trigger() Trigger         { return OnStable }
func (msgGlimpse) trigger() Trigger        { return OnGlimpse }
func (msgDeviceLost) trigger() Trigger     { return OnDeviceLost }
func (msgDeviceBack) trigger() Trigger     { return OnDeviceBack }
func (msgManualDone) trigger() Trigger     { return OnManualDone }
func (msgDeviceAway) trigger() Trigger     { return OnDeviceAway }
func (msgDropped) trigger() Trigger        { return OnDropped }

// with is a row's work for events of type T, a handler that may refuse
// (a command's): the chart resolves a row by its trigger, and each
// trigger has one type.
func with[T msg](f func(*loopState, T) error) func(*loopState, msg) error {
	return func(l *loopState, m msg) error { return f(l, m.(T)) }
}

// takes is with for a handler that never refuses (a result's, or news
// such as an edited goal).
func takes[T msg](f func(*loopState, T)) func(*loopState, msg) error {
	return func(l *loopState, m msg) error {
		f(l, m.(T))
		return nil
	}
}
