// Package eval is the world of chores: parameterized task templates on the
// virtual phone's apps, each with its set-up, a success check read from the
// phone's own state through adb (content query, settings get, dumpsys;
// never the agent's claim) and the oracle's way to solve it by reading the
// screen; the runner that plays a suite through Tandem's normal runs on
// several phones at once; and the oracle, a model server in the tools
// dialect that solves every task from the screen it is sent.
//
// It follows AndroidWorld's method (google-research/android_world,
// android_world/task_evals/task_eval.py: a TaskEval's random parameters,
// initialize_task, is_successful read from the device, tear_down; the
// complexity that sorts tasks) without its code: a Template draws its
// parameters from a seeded source, so one seed lists the same tasks.
//
// It is apart because it is neither a door nor the engine: the command
// line's `tandem eval` (and later the window) call it, and it drives the
// backend as any door does.
package eval
