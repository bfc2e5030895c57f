// Package observe turns what a device shows into what a model is sent.
//
// Why a package of its own: every token a step spends on its observation is
// paid for in latency and money at every step, and small local models have
// 4K–32K contexts (seed 003). So the screenshot is downscaled to the model's
// pixel budget (Qwen's smart_resize where the model's coordinates depend on
// it), only the last few images are sent, the uiautomator dump is compressed
// to the elements a person could act on, older history is summarized, and
// the screenshot is skipped when the compact state says enough. The package
// does no I/O and knows no model API; engine/model calls it.
package observe
